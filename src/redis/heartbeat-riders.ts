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
 * A batch of deferred writes applied by the heartbeat script's observation block (lua/lib/risk_observe.lua:
 * KEYS and ARGV exactly as lua/ratelimit_risk_observe.lua takes them; keys under the heartbeat's hash tag).
 */
export interface HeartbeatBlock {
  keys: readonly string[];
  args: readonly (string | number)[];
}

/** Something whose writes may wait for the next beat, e.g. risk observations of verified updates. */
export interface HeartbeatBlockRider {
  /** The batch to apply with this beat (undefined: nothing); taken: the rider no longer holds it. */
  block(): HeartbeatBlock | undefined;
  /** Called once the beat carrying the block answered: `result` is what the block returned, or the error. */
  settled(block: HeartbeatBlock, result: number | Error): void;
}

/**
 * A read the heartbeat script makes for someone in the same call (lua/ratelimit_instance.lua: the load
 * level, KEYS and ARGV exactly as lua/ratelimit_load.lua takes them; keys under the heartbeat's hash tag).
 */
export interface HeartbeatRead {
  keys: readonly string[];
  args: readonly (string | number)[];
  /** Called once the beat answered: what the read returned, or the error. */
  answered(result: unknown): void;
}

/** Something that reads shared state on every beat rather than on its own call, e.g. the load level. */
export interface HeartbeatReader {
  /** The read to make with this beat (undefined: none this time). */
  read(): HeartbeatRead | undefined;
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
  private readonly blockRiders = new Set<HeartbeatBlockRider>();
  private beatMs: number | undefined;
  private reader: HeartbeatReader | undefined;

  /** Adds a rider; returns its removal. */
  add(rider: HeartbeatRider): () => void {
    this.riders.add(rider);
    return () => this.riders.delete(rider);
  }

  /** Adds a block rider; returns its removal. */
  addBlock(rider: HeartbeatBlockRider): () => void {
    this.blockRiders.add(rider);
    return () => this.blockRiders.delete(rider);
  }

  /** Sets the one reader (the load level); returns its removal. */
  setReader(reader: HeartbeatReader): () => void {
    this.reader = reader;
    return () => {
      if (this.reader === reader) this.reader = undefined;
    };
  }

  /** The read to make with this beat, if any. */
  takeRead(): HeartbeatRead | undefined {
    return this.reader?.read();
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

  /** The blocks the block riders hand over for this beat, each with its rider. */
  takeBlocks(): { rider: HeartbeatBlockRider; block: HeartbeatBlock }[] {
    const out: { rider: HeartbeatBlockRider; block: HeartbeatBlock }[] = [];
    for (const rider of this.blockRiders) {
      const block = rider.block();
      if (block) out.push({ rider, block });
    }
    return out;
  }
}

/** The heartbeat script's rider part (lua/ratelimit_instance.lua, KEYS from [3], ARGV from [6]). */
export function riderArgs(
  rides: readonly { ride: HeartbeatRide }[],
  blocks: readonly { block: HeartbeatBlock }[],
  read?: HeartbeatRead,
): { keys: string[]; args: (string | number)[] } {
  const keys = rides.map((r) => r.ride.key);
  const args: (string | number)[] = [rides.length];
  for (const { ride } of rides) args.push(ride.field, ride.value, ride.ttlMs);
  args.push(read?.keys.length ?? 0);
  if (read) {
    keys.push(...read.keys);
    args.push(...read.args);
  }
  for (const { block } of blocks) {
    keys.push(...block.keys);
    args.push(block.keys.length, block.args.length, ...block.args);
  }
  return { keys, args };
}
