// A rejected prediction is never suggested again: `key` is the (head, relation, tail) triple
// encoded as JSON, unique; lookups at query time go by (head, relation).
CREATE CONSTRAINT rejected_prediction_key_unique IF NOT EXISTS
FOR (p:RejectedPrediction) REQUIRE p.key IS UNIQUE;
CREATE INDEX rejected_prediction_head_relation IF NOT EXISTS
FOR (p:RejectedPrediction) ON (p.head, p.relation);
