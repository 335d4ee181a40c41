export { ErrorCode } from './error-codes';
export { KgcError, isKgcError, toKgcError } from './kgc-error';
