import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { readModelJson } from '../store/model-json';
import type { Rule, RuleSet } from './rule-types';

/** A version's mined rules, beside its weights. */
export const RULES_FILE = 'rules.json';

export function writeRules(dir: string, rules: RuleSet): void {
  fs.writeFileSync(path.join(dir, RULES_FILE), `${JSON.stringify(rules)}\n`);
}

function isRule(value: unknown): value is Rule {
  const rule = value as Rule;
  return (
    typeof rule === 'object' &&
    rule !== null &&
    typeof rule.relation === 'string' &&
    Array.isArray(rule.body) &&
    rule.body.length >= 1 &&
    rule.body.length <= 3 &&
    rule.body.every((a) => typeof a?.relation === 'string' && typeof a?.inverse === 'boolean') &&
    Number.isFinite(rule.support) &&
    Number.isFinite(rule.confidence) &&
    Number.isFinite(rule.headCoverage)
  );
}

/** A rules file is at most this big (the miner keeps a bounded number of rules a relation). */
const MAX_RULES_BYTES = 64 * 2 ** 20;

/**
 * The rules stored with a version, or undefined when it has none (versions from before rule
 * mining, or a model directory trained from files): such a model gives only the fallback reasons.
 */
export function readRules(dir: string): RuleSet | undefined {
  const file = path.join(dir, RULES_FILE);
  if (!fs.existsSync(file)) return undefined;
  const parsed = readModelJson(
    file,
    MAX_RULES_BYTES,
    (why) =>
      new KgcError(
        ErrorCode.MODEL_INVALID,
        `${RULES_FILE} of model ${path.basename(dir)} is unusable (${why}): retrain, or delete the file to serve without path reasons.`,
      ),
  ) as RuleSet;
  const valid =
    parsed?.format === 1 &&
    typeof parsed.rules === 'object' &&
    parsed.rules !== null &&
    Object.entries(parsed.rules).every(
      ([name, rules]) =>
        Array.isArray(rules) && rules.every((r) => isRule(r) && r.relation === name),
    );
  if (!valid) {
    throw new KgcError(
      ErrorCode.MODEL_INVALID,
      `${RULES_FILE} of model ${path.basename(dir)} is not a rule set (format 1): retrain, or delete the file to serve without path reasons.`,
    );
  }
  return parsed;
}
