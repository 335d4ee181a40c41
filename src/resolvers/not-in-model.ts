/** ENTITY_NOT_IN_MODEL's message: what would make the entity answerable. */
export function notInModel(argument: string, id: string, heldBack = false): string {
  if (heldBack) {
    return (
      `${argument}: "${id}" is in the graph but not in the serving model (added after it was trained), and its fold-in was held back: ` +
      "it would have lowered the version's answers for the entities it knows by more than KGC_FOLD_IN_MAX_HARM. A change to its edges tries again; a retraining includes it."
    );
  }
  return (
    `${argument}: "${id}" is in the graph but not in the serving model (added after it was trained) and was not folded in: ` +
    'fold-in needs an edge to an entity the model knows (ingest one and ask again), or a retraining includes it.'
  );
}
