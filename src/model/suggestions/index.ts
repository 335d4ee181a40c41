export type { SuggestionsFile } from './suggestions-file';
export { SuggestionsWriter } from './suggestions-bin';
export { openSuggestions, readSuggestionsFile } from './stored-suggestions';
export { suggestRelation } from './suggest-relation';
export type { StoredSuggestion } from './served-suggestions';
export { suggestionExclusions } from './excluded-pairs';
