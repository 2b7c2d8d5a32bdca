import type { BloomEvent } from '../../store/bloom-store.js';
import type { FilterSet } from './filter-set.js';

/**
 * Applies a store announcement to this instance's copies: an add (a gap in
 * the sequence means one was missed: reload), an activation or rollback made
 * by another instance, or a resync after the event stream was interrupted.
 */
export function applyEvent(filters: FilterSet, event: BloomEvent): void {
  if (filters.closing) return;
  switch (event.type) {
    case 'resync':
      for (const name of filters.replicas.keys())
        filters.background(filters.ensureCurrent(name), name);
      return;
    case 'activated': {
      const replica = filters.replicas.get(event.filter);
      if (
        !replica ||
        filters.isBuilding(event.filter) ||
        replica.active?.info.version === event.version
      )
        return;
      if (replica.previous?.info.version === event.version && replica.seq === event.seq) {
        replica.swap();
        filters.activated(event.filter, 'rollback');
      } else {
        filters.background(filters.reload(event.filter), event.filter);
      }
      return;
    }
    case 'added': {
      const replica = filters.replicas.get(event.filter);
      if (!replica) return;
      if (replica.onAdded(event.seq, event.keys) === 'gap')
        filters.background(filters.reload(event.filter), event.filter);
      filters.afterAdd(event.filter);
      return;
    }
  }
}
