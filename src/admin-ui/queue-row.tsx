import { Component } from 'preact';
import type { ReviewItem } from './queue-source';

interface RowProps {
  item: ReviewItem;
  index: number;
  current: boolean;
  selected: boolean;
  canDecide: boolean;
  onPick: (index: number) => void;
  /** Stable across renders' state: rows skip re-rendering, so it must not close over state. */
  onToggle: (item: ReviewItem) => void;
}

/** One queue row; re-renders only when its own item, focus or selection changes (1,000 rows). */
export class QueueRow extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    const p = this.props;
    return (
      next.item !== p.item ||
      next.current !== p.current ||
      next.selected !== p.selected ||
      next.index !== p.index ||
      next.canDecide !== p.canDecide
    );
  }

  override render({ item, index, current, selected, canDecide, onPick, onToggle }: RowProps) {
    return (
      <li
        class={current ? 'row current' : 'row'}
        aria-current={current ? 'true' : undefined}
        data-testid="queue-row"
        onClick={() => onPick(index)}
      >
        {canDecide && (
          <input
            type="checkbox"
            aria-label={`select ${item.head.id} → ${item.tail.id}`}
            checked={selected}
            onClick={(event) => {
              event.stopPropagation();
              onToggle(item);
            }}
          />
        )}
        <span class="edge">
          {item.head.id} → {item.tail.id}
        </span>
        <span class="prob">{(item.probability * 100).toFixed(1)}%</span>
      </li>
    );
  }
}
