import { Inject, Injectable, Logger } from '@nestjs/common';
import { AUDIT_LOG, AuditEntry, AuditLog } from './audit-log.js';

/**
 * Writes audit entries after a change was applied. The change has already
 * happened, so a failed write does not undo it: it is logged (without
 * values) and counted, and the admin answer still reports the change.
 */
@Injectable()
export class AuditRecorder {
  private readonly logger = new Logger('Audit');

  constructor(@Inject(AUDIT_LOG) private readonly log: AuditLog) {}

  async record(entry: Omit<AuditEntry, 'id'>): Promise<void> {
    try {
      await this.log.append(entry);
    } catch (err) {
      this.logger.error(
        `audit entry lost (${entry.actor} ${entry.action} ${entry.target}): ${(err as Error).message}`,
      );
    }
  }
}
