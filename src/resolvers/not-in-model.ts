/** ENTITY_NOT_IN_MODEL's message: what would make the entity answerable. */
export function notInModel(argument: string, id: string): string {
  return (
    `${argument}: "${id}" is in the graph but not in the serving model (added after it was trained) and was not folded in: ` +
    'fold-in needs an edge to an entity the model knows (ingest one and ask again), or a retraining includes it.'
  );
}
