import { Injectable } from '@nestjs/common';

/** One hash field written along with the instance heartbeat (same hash tag as the heartbeat's keys). */
export interface HeartbeatRide {
  key: string;
  field: string;
  value: string;
  /** The hash's TTL, refreshed with the write. */
  ttlMs: number;
}

/** Something that would otherwise write Redis on its own timer, e.g. an unchanged status snapshot. */
export interface HeartbeatRider {
  /** What to write with this beat (undefined: nothing this time). */
  ride(): HeartbeatRide | undefined;
  /** Called after the beat carrying `ride` was written; not called when it failed. */
  written(ride: HeartbeatRide): void;
}

/**
 * Periodic writes that ride on the instance heartbeat, so that an idle
 * instance makes one Redis call per heartbeat instead of one per timer. The
 * heartbeat (the rate-limit lock's live-instance beat) writes what the riders
 * give it in the same script call; a rider whose data is not written for a
 * while (no heartbeat: that lock is not installed, or the beat failed) keeps
 * writing on its own timer. Neither side knows the other: both know only this.
 */
@Injectable()
export class HeartbeatRiders {
  private readonly riders = new Set<HeartbeatRider>();
  private beatMs: number | undefined;

  /** Adds a rider; returns its removal. */
  add(rider: HeartbeatRider): () => void {
    this.riders.add(rider);
    return () => this.riders.delete(rider);
  }

  /** Called by the heartbeat when it starts: the period riders can count on (undefined: no heartbeat). */
  beating(everyMs: number): void {
    this.beatMs = everyMs;
  }

  /** Milliseconds between heartbeats, or undefined when there is no heartbeat to ride on. */
  get periodMs(): number | undefined {
    return this.beatMs;
  }

  /** What the riders want written with this beat, each with its rider. */
  take(): { rider: HeartbeatRider; ride: HeartbeatRide }[] {
    const out: { rider: HeartbeatRider; ride: HeartbeatRide }[] = [];
    for (const rider of this.riders) {
      const ride = rider.ride();
      if (ride) out.push({ rider, ride });
    }
    return out;
  }
}
