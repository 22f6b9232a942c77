import type { ChargeLeasedCreditsCommand, ChargeLeasedCreditsReply } from '@lib/contracts';
import { Injectable } from '@nestjs/common';
import { CreditLedger } from './credit-ledger';

interface PendingCharge {
  command: ChargeLeasedCreditsCommand;
  resolve(reply: ChargeLeasedCreditsReply): void;
  reject(error: unknown): void;
}

// Bounds one statement's input; a longer queue is written in several groups, one after another.
const MAX_GROUP = 500;

/**
 * Group commit for leased charges: a charge that arrives while no group is being written is
 * written at once (no added wait when traffic is light); charges that arrive while a group is
 * being written wait for it and go together in the next one. Each caller is answered after the
 * statement holding its charge has committed, so a charge a client is told about is recorded.
 */
@Injectable()
export class ChargeGroupCommit {
  private queue: PendingCharge[] = [];
  private writing = false;

  constructor(private readonly ledger: CreditLedger) {}

  charge(command: ChargeLeasedCreditsCommand): Promise<ChargeLeasedCreditsReply> {
    return new Promise((resolve, reject) => {
      this.queue.push({ command, resolve, reject });
      if (!this.writing) void this.writeGroups();
    });
  }

  private async writeGroups(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const group = this.nextGroup();
        try {
          const replies = await this.ledger.chargeLeased(group.map((p) => p.command));
          group.forEach((pending, i) => {
            const reply = replies[i];
            if (reply instanceof Error) pending.reject(reply);
            else pending.resolve(reply);
          });
        } catch (error) {
          for (const pending of group) pending.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** Up to MAX_GROUP queued charges with distinct charge keys (a repeated key waits for the next group). */
  private nextGroup(): PendingCharge[] {
    const group: PendingCharge[] = [];
    const keys = new Set<string>();
    const rest: PendingCharge[] = [];
    for (const pending of this.queue) {
      if (group.length < MAX_GROUP && !keys.has(pending.command.charge_key)) {
        keys.add(pending.command.charge_key);
        group.push(pending);
      } else rest.push(pending);
    }
    this.queue = rest;
    return group;
  }
}
