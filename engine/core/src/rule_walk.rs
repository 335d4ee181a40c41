//! Path rules walked in a version's graph: the candidates a question's rules reach, with their
//! confidences aggregated (max, noisy-or, count). The same walk as `src/model/rules/
//! rule-evidence.ts` (which the TypeScript side keeps for mining and reasons), step for step, so
//! both give the same candidates in the same order with the same evidence to the last bit.
//!
//! The graph is the TypeScript `GraphIndex`'s CSR: node n's entries are
//! `offsets[n]..offsets[n + 1]`, sorted by (step, neighbour), where step `2r` follows an edge of
//! relation r and `2r + 1` walks one back.

use crate::error::{Error, Result};

/// A node's adjacency by step, both directions (the TypeScript `GraphIndex`'s arrays).
pub struct PathIndex {
    offsets: Vec<u32>,
    step: Vec<u32>,
    neighbour: Vec<u32>,
    /// Per step: how many distinct nodes it leads to (the most ends a walk ending with it finds).
    ends: Vec<u32>,
}

/// A rule body as steps (one to three) and the rule's confidence.
#[derive(Clone, Debug, PartialEq)]
pub struct WalkRule {
    pub steps: Vec<u32>,
    pub confidence: f64,
}

/// The candidates a question's rules reach, in the order first reached, with per candidate the
/// best confidence, the noisy-or `1 - Π(1 - c)` and the number of rules that reach it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleEvidence {
    pub candidates: Vec<u32>,
    pub max: Vec<f64>,
    pub noisy_or: Vec<f64>,
    pub rules: Vec<u32>,
}

/// Per-node marks reused across walks (one per thread): which walk reached a node last, and
/// which question placed it where in its evidence.
pub struct WalkScratch {
    walk: u32,
    reached: Vec<u32>,
    question: u32,
    seen: Vec<u32>,
    slot: Vec<u32>,
}

impl WalkScratch {
    pub fn new(nodes: usize) -> WalkScratch {
        WalkScratch {
            walk: 0,
            reached: vec![0; nodes],
            question: 0,
            seen: vec![0; nodes],
            slot: vec![0; nodes],
        }
    }

    fn next_walk(&mut self) -> u32 {
        next_mark(&mut self.walk, &mut self.reached)
    }

    fn next_question(&mut self) -> u32 {
        next_mark(&mut self.question, &mut self.seen)
    }
}

/// The next mark of a counter whose marks live in `marks`, clearing them when it wraps.
fn next_mark(mark: &mut u32, marks: &mut [u32]) -> u32 {
    if *mark == u32::MAX {
        marks.fill(0);
        *mark = 0;
    }
    *mark += 1;
    *mark
}

/// The step that walks back along `step`.
fn reverse(step: u32) -> u32 {
    step ^ 1
}

impl PathIndex {
    /// Checks the arrays (CSR shape, neighbours in range, steps within `steps`); errors name the
    /// array and the entry.
    pub fn new(
        offsets: Vec<u32>,
        step: Vec<u32>,
        neighbour: Vec<u32>,
        steps: u32,
    ) -> Result<PathIndex> {
        let nodes = offsets.len().saturating_sub(1);
        if offsets.first() != Some(&0) || *offsets.last().unwrap_or(&1) as usize != step.len() {
            return Err(Error::Dataset(format!(
                "path index: offsets must run from 0 to the entry count {}",
                step.len()
            )));
        }
        if neighbour.len() != step.len() {
            return Err(Error::Dataset(format!(
                "path index: {} neighbours for {} steps",
                neighbour.len(),
                step.len()
            )));
        }
        if let Some(n) = (0..nodes).find(|&n| offsets[n] > offsets[n + 1]) {
            return Err(Error::Dataset(format!(
                "path index: offsets decrease at node {n}"
            )));
        }
        if let Some(e) = (0..step.len()).find(|&e| step[e] >= steps) {
            return Err(Error::Dataset(format!(
                "path index: entry {e}'s step is past {steps}"
            )));
        }
        if let Some(e) = (0..step.len()).find(|&e| neighbour[e] as usize >= nodes) {
            return Err(Error::Dataset(format!(
                "path index: entry {e}'s neighbour is past {nodes}"
            )));
        }
        let mut ends = vec![0u32; steps as usize];
        for n in 0..nodes {
            let mut last = u32::MAX;
            for &s in &step[offsets[n] as usize..offsets[n + 1] as usize] {
                if s != last {
                    ends[reverse(s) as usize] += 1;
                }
                last = s;
            }
        }
        Ok(PathIndex {
            offsets,
            step,
            neighbour,
            ends,
        })
    }

    pub fn nodes(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The first of `node`'s entries with `step` or a later one.
    fn first(&self, node: u32, step: u32) -> usize {
        let (lo, hi) = (
            self.offsets[node as usize] as usize,
            self.offsets[node as usize + 1] as usize,
        );
        lo + self.step[lo..hi].partition_point(|&s| s < step)
    }

    /// `node`'s neighbours by `step`.
    fn along(&self, node: u32, step: u32) -> &[u32] {
        let start = self.first(node, step);
        let end = self.offsets[node as usize + 1] as usize;
        let run = self.step[start..end].partition_point(|&s| s == step);
        &self.neighbour[start..start + run]
    }

    /// Calls `each(y)` once for every end y ≠ x of a path from `x` along `steps` through distinct
    /// nodes, while fewer than `budget` entries have been walked; returns the entries left (≤ 0:
    /// cut short). A walk that has found every node its last step leads to stops there.
    fn walk(
        &self,
        x: u32,
        steps: &[u32],
        budget: i64,
        scratch: &mut WalkScratch,
        mut each: impl FnMut(u32),
    ) -> i64 {
        let walk = scratch.next_walk();
        let last = steps[steps.len() - 1];
        let leads_to_x = !self.along(x, reverse(last)).is_empty();
        let mut missing = self.ends[last as usize] as i64 - i64::from(leads_to_x);
        let mut left = budget;
        let reached = &mut scratch.reached;
        reached[x as usize] = walk;
        let mut emit = |y: u32, missing: &mut i64| {
            if reached[y as usize] != walk {
                reached[y as usize] = walk;
                *missing -= 1;
                each(y);
            }
        };
        let (s2, s3) = (steps.get(1).copied(), steps.get(2).copied());
        for &z1 in self.along(x, steps[0]) {
            if left <= 0 || missing <= 0 {
                break;
            }
            left -= 1;
            let Some(s2) = s2 else {
                emit(z1, &mut missing);
                continue;
            };
            if z1 == x {
                continue;
            }
            for &z2 in self.along(z1, s2) {
                if left <= 0 || missing <= 0 {
                    break;
                }
                left -= 1;
                if z2 == x || z2 == z1 {
                    continue;
                }
                let Some(s3) = s3 else {
                    emit(z2, &mut missing);
                    continue;
                };
                for &y in self.along(z2, s3) {
                    if left <= 0 || missing <= 0 {
                        break;
                    }
                    left -= 1;
                    if y != z1 && y != z2 {
                        emit(y, &mut missing);
                    }
                }
            }
        }
        left
    }

    /// The evidence of `rules` (one question's, best first) for the answers of the question
    /// from `x`: every node some rule reaches, with the confidences aggregated. `budget`: the
    /// entries the question's walks may take together, the best rules first.
    pub fn evidence(
        &self,
        x: u32,
        rules: &[WalkRule],
        budget: u32,
        scratch: &mut WalkScratch,
    ) -> RuleEvidence {
        let mut found = RuleEvidence::default();
        if x as usize >= self.nodes() {
            return found;
        }
        let question = scratch.next_question();
        let mut left = i64::from(budget);
        for rule in rules {
            if left <= 0 {
                break;
            }
            let c = rule.confidence;
            // The walk marks `reached`; the question's own marks are moved out for the closure.
            let mut seen = std::mem::take(&mut scratch.seen);
            let mut slot = std::mem::take(&mut scratch.slot);
            left = self.walk(x, &rule.steps, left, scratch, |y| {
                let y = y as usize;
                if seen[y] != question {
                    seen[y] = question;
                    slot[y] = found.candidates.len() as u32;
                    found.candidates.push(y as u32);
                    found.max.push(c);
                    found.noisy_or.push(c);
                    found.rules.push(1);
                } else {
                    let i = slot[y] as usize;
                    found.max[i] = found.max[i].max(c);
                    found.noisy_or[i] = 1.0 - (1.0 - found.noisy_or[i]) * (1.0 - c);
                    found.rules[i] += 1;
                }
            });
            scratch.seen = seen;
            scratch.slot = slot;
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CSR of (h, r, t) edges as the TypeScript `GraphIndex` builds it.
    fn index(nodes: u32, relations: u32, edges: &[(u32, u32, u32)]) -> PathIndex {
        let mut lists: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nodes as usize];
        for &(h, r, t) in edges {
            lists[h as usize].push((2 * r, t));
            lists[t as usize].push((2 * r + 1, h));
        }
        let (mut offsets, mut step, mut neighbour) = (vec![0u32], Vec::new(), Vec::new());
        for mut list in lists {
            list.sort();
            for (s, n) in list {
                step.push(s);
                neighbour.push(n);
            }
            offsets.push(step.len() as u32);
        }
        PathIndex::new(offsets, step, neighbour, 2 * relations).unwrap()
    }

    #[test]
    fn two_step_rule_reaches_the_class_of_similar_nodes() {
        // 0 similar_to(1) 1, 1 is_a(0) 3, 2 similar_to 1 too; rule is_a(x, y) <= similar(x, z), is_a(z, y).
        let g = index(4, 2, &[(0, 1, 1), (1, 0, 3), (2, 1, 1)]);
        let rule = WalkRule {
            steps: vec![2, 0],
            confidence: 0.8,
        };
        let mut scratch = WalkScratch::new(4);
        let found = g.evidence(0, &[rule], 100, &mut scratch);
        assert_eq!(found.candidates, vec![3]);
        assert_eq!(found.rules, vec![1]);
    }

    #[test]
    fn aggregates_rules_that_reach_the_same_candidate() {
        let g = index(3, 2, &[(0, 0, 1), (0, 1, 1), (0, 1, 2)]);
        let rules = [
            WalkRule {
                steps: vec![0],
                confidence: 0.5,
            },
            WalkRule {
                steps: vec![2],
                confidence: 0.25,
            },
        ];
        let found = g.evidence(0, &rules, 100, &mut WalkScratch::new(3));
        assert_eq!(found.candidates, vec![1, 2]);
        assert_eq!(found.max, vec![0.5, 0.25]);
        assert_eq!(found.noisy_or, vec![1.0 - 0.5 * 0.75, 0.25]);
        assert_eq!(found.rules, vec![2, 1]);
    }

    #[test]
    fn never_returns_the_start_and_stops_at_the_budget() {
        // A star: 0 -> 1..=5 by r0; the reverse walk r0 then r0⁻¹ from 1 leads back to 0's others.
        let edges: Vec<_> = (1..=5).map(|t| (0, 0, t)).collect();
        let g = index(6, 1, &edges);
        let rule = WalkRule {
            steps: vec![1, 0],
            confidence: 1.0,
        };
        let mut scratch = WalkScratch::new(6);
        let all = g.evidence(1, std::slice::from_ref(&rule), 100, &mut scratch);
        assert_eq!(all.candidates, vec![2, 3, 4, 5]);
        // 1 entry to reach 0, then 1 more per neighbour tried (1 itself first).
        let cut = g.evidence(1, &[rule], 3, &mut scratch);
        assert_eq!(cut.candidates, vec![2]);
    }

    #[test]
    fn rejects_arrays_that_are_not_a_csr() {
        assert!(PathIndex::new(vec![0, 2], vec![0], vec![0], 2).is_err());
        assert!(PathIndex::new(vec![0, 1], vec![3], vec![0], 2).is_err());
        assert!(PathIndex::new(vec![0, 1], vec![0], vec![4], 2).is_err());
    }
}
