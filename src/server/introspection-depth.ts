import {
  ASTVisitor,
  FieldNode,
  GraphQLError,
  Kind,
  SelectionSetNode,
  ValidationContext,
} from 'graphql';

/**
 * The deepest `__schema` selection allowed. The standard introspection query (graphql-js's
 * getIntrospectionQuery, what GraphiQL and code generators send) is 15 deep, `__schema` counted.
 */
export const MAX_INTROSPECTION_DEPTH = 20;

/**
 * The depth rule (graphql-armor) skips `__schema`, and graphql-js's own introspection rule
 * counts only list fields, so `type { ofType { ofType ... } }` nested a thousand deep passed both.
 * This one bounds every `__schema` selection, fragments followed.
 */
export function maxIntrospectionDepthRule(limit = MAX_INTROSPECTION_DEPTH) {
  return (context: ValidationContext): ASTVisitor => {
    // Depths capped at limit + 1 (so a cycle, reported by its own rule, ends), and a fragment's
    // depth counted once: spreading one fragment many times must not cost exponential time.
    const cap = limit + 1;
    const fragments = new Map<string, number>();
    const depthOf = (set: SelectionSetNode): number => {
      let deepest = 0;
      for (const selection of set.selections) {
        if (deepest >= cap) break;
        if (selection.kind === Kind.FIELD) {
          const below = selection.selectionSet ? depthOf(selection.selectionSet) : 0;
          deepest = Math.max(deepest, Math.min(cap, 1 + below));
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          deepest = Math.max(deepest, depthOf(selection.selectionSet));
        } else {
          deepest = Math.max(deepest, fragmentDepth(selection.name.value));
        }
      }
      return deepest;
    };
    const fragmentDepth = (name: string): number => {
      const known = fragments.get(name);
      if (known !== undefined) return known;
      fragments.set(name, cap); // met again while counting it: a cycle
      const fragment = context.getFragment(name);
      const depth = fragment ? depthOf(fragment.selectionSet) : 0;
      fragments.set(name, depth);
      return depth;
    };
    return {
      Field(node: FieldNode) {
        if (node.name.value !== '__schema' || !node.selectionSet) return;
        const depth = 1 + depthOf(node.selectionSet);
        if (depth > limit) {
          context.reportError(
            new GraphQLError(
              `Introspection depth limit of ${limit} exceeded: __schema selections may nest at most ${limit} fields deep.`,
              { nodes: [node] },
            ),
          );
        }
      },
    };
  };
}
