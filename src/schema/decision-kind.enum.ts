import { registerEnumType } from 'type-graphql';

export enum DecisionKind {
  ACCEPT = 'ACCEPT',
  REJECT = 'REJECT',
  UNDO_REJECTION = 'UNDO_REJECTION',
  REVERT = 'REVERT',
}

registerEnumType(DecisionKind, {
  name: 'DecisionKind',
  description: 'What an admin decided about a prediction',
});
