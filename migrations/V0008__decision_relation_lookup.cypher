// The review page's counts read a relation's decisions (reviewStats, reviewQueue's pending): an
// index on the relation, so that read seeks instead of scanning every Decision node.
CREATE INDEX decision_relation IF NOT EXISTS
FOR (d:Decision) ON (d.relation);
