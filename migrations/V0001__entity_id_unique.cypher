// Entities are (:Entity {id}); ingest MERGEs on id, export and scoring look entities up by it.
CREATE CONSTRAINT entity_id_unique IF NOT EXISTS
FOR (e:Entity) REQUIRE e.id IS UNIQUE;
