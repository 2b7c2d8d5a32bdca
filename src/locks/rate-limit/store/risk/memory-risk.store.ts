import { BoundedMap } from '../../../../common/bounded-map.js';
import type { Clock } from '../../../../common/clock.js';
import type { MemoryRiskRecords, RiskRecord } from './memory-risk-records.js';
import { addPoints } from '../../core/risk-math.js';
import type { RiskRecordView, RiskStore } from './risk-store.js';
import type { ObserveParams } from '../../core/risk.types.js';
import type { RiskObservation, RiskSignal } from '../../core/risk.types.js';

import { RISK_CHAT_SETS, RISK_MARKERS } from '../../core/memory-caps.js';

/** Risk observations in process memory, on the records the memory rate-limit store decides with. */
export class MemoryRiskStore implements RiskStore {
  private readonly markers: BoundedMap<string, number>;
  private readonly chats: BoundedMap<string, Map<string, number>>;

  constructor(
    private readonly records: MemoryRiskRecords,
    private readonly clock: Clock,
    /** Payload markers and chat sets held at most (`rateLimit.memory`; a lost one misses a repeat or a spread). */
    caps: { riskMarkers: number; riskChatSets: number } = {
      riskMarkers: RISK_MARKERS,
      riskChatSets: RISK_CHAT_SETS,
    },
  ) {
    this.markers = new BoundedMap<string, number>({
      store: 'risk_markers',
      maxEntries: caps.riskMarkers,
      whenFull: 'evict-oldest',
      expired: (until, now) => until <= now,
    });
    this.chats = new BoundedMap<string, Map<string, number>>({
      store: 'risk_chats',
      maxEntries: caps.riskChatSets,
      whenFull: 'evict-oldest',
    });
  }

  observe(batch: readonly RiskObservation[], p: ObserveParams): Promise<number> {
    const nowMs = this.clock.now();
    let raised = 0;
    const raise = (key: string, signal: RiskSignal, count: number, points: number): void => {
      const now = nowMs * 1000;
      const r = this.records.upsert(key, nowMs, p);
      r.s = addPoints(r.s, now, points, p.unitUs, p.maxScore);
      r.r = now;
      const signals = (r.signals ??= {});
      const c = signals[signal] ?? { count: 0, lastUs: now };
      signals[signal] = { count: c.count + count, lastUs: now };
      raised += 1;
    };
    for (const o of batch) {
      if (o.kind === 'signal') raise(o.key, o.signal, o.count, o.points);
      else if (o.kind === 'payload') {
        const until = this.markers.get(o.marker);
        if (until !== undefined && until > nowMs)
          raise(o.key, 'repeated_payload', 1, p.payloadPoints);
        else this.markers.set(o.marker, nowMs + p.payloadWindowMs, nowMs);
      } else {
        let set = this.chats.get(o.set);
        if (!set) this.chats.set(o.set, (set = new Map()), nowMs);
        set.delete(o.member);
        set.set(o.member, nowMs);
        // Oldest first: past the window, or past what the limit needs to be seen.
        for (const [m, at] of set)
          if (at < nowMs - p.chatWindowMs || set.size > p.chatLimit + 1) set.delete(m);
          else break;
        if (set.size > p.chatLimit) raise(o.key, 'chat_spread', 1, p.chatPoints);
      }
    }
    return Promise.resolve(raised);
  }

  read(key: string): Promise<RiskRecordView | undefined> {
    const r: RiskRecord | undefined = this.records.get(key, this.clock.now());
    return Promise.resolve(
      r && { s: r.s, f: r.f, t: r.t, signals: structuredClone(r.signals ?? {}) },
    );
  }

  reset(key: string): Promise<boolean> {
    return Promise.resolve(this.records.delete(key));
  }
}
