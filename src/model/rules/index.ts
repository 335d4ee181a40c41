export { mineRules } from './mine-rules';
export type { MiningGraph } from './mine-rules';
export { mineVersionRules } from './version-rules';
export { readRules, RULES_FILE, writeRules } from './rules-file';
export type { Rule } from './rule-types';
