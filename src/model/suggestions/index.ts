export { readSuggestionsFile, SUGGESTIONS_FILE, writeSuggestionsFile } from './suggestions-file';
export type { RelationSuggestions, SuggestionsFile } from './suggestions-file';
export { suggestRelation } from './suggest-relation';
export type { StoredSuggestion } from './served-suggestions';
