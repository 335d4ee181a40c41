export { mineRules } from './mine-rules';
export type { MiningGraph } from './mine-rules';
export { mineVersionRules } from './version-rules';
export { readRules, RULES_FILE, writeRules } from './rules-file';
export { DEFAULT_MINING } from './rule-types';
export type { MiningSettings, Rule, RuleAtom, RuleSet } from './rule-types';
