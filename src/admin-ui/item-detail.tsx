import type { EntityView, ReasonView, ReviewItem } from './queue-source';

/** A path reason as text, walked from the suggestion's head: "a —r1→ b ←r2— c". */
export function pathText(start: string, edges: ReasonView['edges']): string {
  let at = start;
  let text = at;
  for (const edge of edges) {
    if (edge.head === at) {
      text += ` —${edge.relation}→ ${edge.tail}`;
      at = edge.tail;
    } else {
      text += ` ←${edge.relation}— ${edge.head}`;
      at = edge.head;
    }
  }
  return text;
}

function Reason({ reason, item }: { reason: ReasonView; item: ReviewItem }) {
  if (reason.kind === 'PATH') {
    return (
      <li class="reason">
        <code>{pathText(item.head.id, reason.edges)}</code>
        {reason.rule && (
          <span class="rule">
            rule {reason.rule.text}, confidence {reason.rule.confidence.toFixed(2)}
          </span>
        )}
      </li>
    );
  }
  const edge = reason.edges[0];
  return (
    <li class="reason">
      <code>{edge ? `${edge.head} —${edge.relation}→ ${edge.tail}` : '(no edge)'}</code>
      <span class="rule">
        a known edge of a similar entity
        {reason.similarity !== null ? `, similarity ${reason.similarity.toFixed(2)}` : ''}
      </span>
    </li>
  );
}

function Properties({ title, entity }: { title: string; entity: EntityView }) {
  const entries = Object.entries(entity.properties);
  return (
    <section class="entity">
      <h3>
        {title} <code>{entity.id}</code>
      </h3>
      {entries.length === 0 ? (
        <p class="muted">No properties.</p>
      ) : (
        <dl>
          {entries.map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

/** The current suggestion: both entities, the numbers, and why the model suggests it. */
export function ItemDetail({ item }: { item: ReviewItem }) {
  return (
    <article class="detail" data-testid="item-detail">
      <h2>
        <code>{item.head.id}</code> —{item.relation}→ <code>{item.tail.id}</code>
      </h2>
      <p class="numbers">
        probability{' '}
        <strong data-testid="probability">{(item.probability * 100).toFixed(1)}%</strong>
        {' · '}logit {item.logit.toFixed(3)}
        {' · '}model {item.modelVersion}
        {item.typeConsistent === false && <span class="warn"> · outside the learned types</span>}
      </p>
      <div class="entities">
        <Properties title="Head" entity={item.head} />
        <Properties title="Tail" entity={item.tail} />
      </div>
      <h3>Reasons</h3>
      {item.reasons.length === 0 ? (
        <p class="muted">No reasons found in the graph.</p>
      ) : (
        <ul class="reasons">
          {item.reasons.map((reason, i) => (
            <Reason key={i} reason={reason} item={item} />
          ))}
        </ul>
      )}
    </article>
  );
}
