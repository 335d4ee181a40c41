// Every admin decision on a prediction (accept, reject, undo, revert): listed newest first.
CREATE CONSTRAINT decision_id_unique IF NOT EXISTS
FOR (d:Decision) REQUIRE d.id IS UNIQUE;
CREATE INDEX decision_at IF NOT EXISTS
FOR (d:Decision) ON (d.at);
// Head predictions filter rejections by (tail, relation) at query time.
CREATE INDEX rejected_prediction_tail_relation IF NOT EXISTS
FOR (p:RejectedPrediction) ON (p.tail, p.relation);
