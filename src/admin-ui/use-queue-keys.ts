import { useEffect, useRef } from 'preact/hooks';

export interface QueueKeys {
  next: () => void;
  previous: () => void;
  accept: () => void;
  reject: () => void;
  undo: () => void;
}

/** a accept, r reject, j/k move, u undo: anywhere on the page except while typing in a field. */
export function useQueueKeys(handlers: QueueKeys): void {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target;
      const typing =
        target instanceof HTMLTextAreaElement ||
        target instanceof HTMLSelectElement ||
        (target instanceof HTMLInputElement && target.type !== 'checkbox');
      if (typing) return;
      const action = { j: 'next', k: 'previous', a: 'accept', r: 'reject', u: 'undo' }[event.key];
      if (!action) return;
      event.preventDefault();
      latest.current[action as keyof QueueKeys]();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
