import { Database, latestDecisions } from '../../../src/graph';
import { testDatabase, uniqueId } from '../../support/test-database';

interface PlanNode {
  operatorType: string;
  children: PlanNode[];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...node.children.flatMap(flatten)];
}

describe("latestDecisions: a relation's latest decision per edge", () => {
  const relation = uniqueId('decided');
  const other = uniqueId('other');
  let db: Database;

  beforeAll(async () => {
    db = testDatabase();
    const decisions = [
      // a→b: rejected, then undone: undecided again.
      { relation, head: 'a', tail: 'b', kind: 'REJECT', at: 1, probability: 0.4 },
      { relation, head: 'a', tail: 'b', kind: 'UNDO_REJECTION', at: 2, probability: null },
      // a→c: accepted last.
      { relation, head: 'a', tail: 'c', kind: 'REJECT', at: 1, probability: 0.3 },
      { relation, head: 'a', tail: 'c', kind: 'ACCEPT', at: 3, probability: 0.7 },
      // Another relation's decision on the same pair is not this relation's.
      { relation: other, head: 'a', tail: 'b', kind: 'ACCEPT', at: 5, probability: 0.9 },
    ];
    await db.write((tx) =>
      tx.run(
        `UNWIND range(0, size($decisions) - 1) AS i
         WITH i, $decisions[i] AS d
         CREATE (:Decision {id: $tag + i, relation: d.relation, head: d.head, tail: d.tail,
                            kind: d.kind, at: datetime({epochSeconds: toInteger(d.at)}),
                            probability: d.probability})`,
        { decisions, tag: relation },
      ),
    );
  });

  afterAll(async () => {
    await db.write((tx) =>
      tx.run('MATCH (d:Decision) WHERE d.relation IN [$relation, $other] DELETE d', {
        relation,
        other,
      }),
    );
    await db.close();
  });

  it('keeps the latest accept or reject of each edge and drops undone ones', async () => {
    expect(await latestDecisions(db, relation)).toEqual([
      { head: 'a', tail: 'c', kind: 'ACCEPT', probability: 0.7 },
    ]);
  });

  it("seeks the relation's decisions by index instead of scanning every Decision", async () => {
    const result = await db.readQuery(
      'PROFILE MATCH (d:Decision {relation: $relation}) RETURN count(d) AS n',
      { relation },
    );
    const operators = flatten(result.summary.profile as unknown as PlanNode).map(
      (o) => o.operatorType,
    );
    expect(operators.some((o) => o.startsWith('NodeIndexSeek'))).toBe(true);
    expect(operators.some((o) => o.startsWith('NodeByLabelScan'))).toBe(false);
  });
});
