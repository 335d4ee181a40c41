import type { ApolloServerPlugin } from '@apollo/server';
import {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  getArgumentValues,
  getVariableValues,
  GraphQLError,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  OperationTypeNode,
  SelectionSetNode,
} from 'graphql';
import { ErrorCode } from '../errors';
import type { ServingModel } from '../model';
import {
  CONNECTED_COST,
  costContext,
  type CostContext,
  FIELD_COSTS,
  REASONS_ROW_COST,
  REDUCE_COST_HINT,
  SCORING_COST,
} from '../resolvers';

/** Root fields of a selection set, through fragment spreads and inline fragments. */
function rootFields(
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) {
      fields.push(...rootFields(selection.selectionSet, fragments, seen));
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      // A fragment spread twice merges into the same fields: count it once.
      if (!fragment || seen.has(name)) continue;
      seen.add(name);
      fields.push(...rootFields(fragment.selectionSet, fragments, seen));
    }
  }
  return fields;
}

/** Whether `name` is selected anywhere under `selectionSet`, through fragments. */
function selects(
  selectionSet: SelectionSetNode | undefined,
  name: string,
  fragments: Map<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): boolean {
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === name || selects(selection.selectionSet, name, fragments, seen))
        return true;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (selects(selection.selectionSet, name, fragments, seen)) return true;
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      if (selects(fragments.get(selection.name.value)?.selectionSet, name, fragments, seen))
        return true;
    }
  }
  return false;
}

/**
 * The operation's cost (FIELD_COSTS over its root fields, variables and defaults applied).
 * Fields whose arguments do not coerce are left out: execution refuses them without work.
 * @skip and @include are ignored, so a skipped field still counts (an upper bound).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode | undefined,
  variables: Record<string, unknown> | undefined,
  served?: CostContext,
): number {
  const root = schema.getQueryType();
  if (operation?.operation !== OperationTypeNode.QUERY || !root) return 0;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  const defs = root.getFields();
  let cost = 0;
  for (const field of rootFields(operation.selectionSet, fragments)) {
    const costOf = FIELD_COSTS[field.name.value];
    const def = defs[field.name.value];
    if (!costOf || !def) continue;
    try {
      const asks = {
        reasons: selects(field.selectionSet, 'reasons', fragments),
        pending: selects(field.selectionSet, 'pending', fragments),
      };
      cost += costOf(getArgumentValues(def, field, coerced.coerced), asks, served);
    } catch {
      // Bad arguments: execution answers this field with its error and does no work.
    }
  }
  return cost;
}

/** Refuses (QUERY_TOO_COSTLY, HTTP 400) an operation above `maxCost` before it executes. */
export function queryCostPlugin(maxCost: number): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request, contextValue }) {
          const model = (contextValue as { model?: ServingModel }).model;
          const served = model && costContext(model);
          const cost = operationCost(schema, document, operation, request.variables, served);
          if (cost <= maxCost) return;
          throw new GraphQLError(
            `This request costs ${cost} units, over the limit of ${maxCost} (KGC_MAX_QUERY_COST; ` +
              `a missingLinks query costs k + ${SCORING_COST}, plus ${CONNECTED_COST} with excludeConnected and ` +
              `${REASONS_ROW_COST} per answer with reasons, summed over ` +
              `aliases and batch queries): ${REDUCE_COST_HINT}.`,
            { extensions: { code: ErrorCode.QUERY_TOO_COSTLY, http: { status: 400 } } },
          );
        },
      };
    },
  };
}
