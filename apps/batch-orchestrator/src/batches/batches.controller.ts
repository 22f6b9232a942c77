import {
  AppendJobsCommand,
  BatchReference,
  BatchTransitionCommand,
  BatchView,
  BatchWriteReply,
  CreateBatchCommand,
  SUBJECTS,
} from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BatchLifecycle } from './batch-lifecycle';

/** Batches of a project (spec 4.8). */
@Controller()
export class BatchesController {
  constructor(private readonly batches: BatchLifecycle) {}

  @MessagePattern(SUBJECTS.batches.create)
  create(@Payload() command: CreateBatchCommand): Promise<BatchWriteReply> {
    return this.batches.create(command);
  }

  @MessagePattern(SUBJECTS.batches.append)
  append(@Payload() command: AppendJobsCommand): Promise<BatchWriteReply> {
    return this.batches.append(command);
  }

  @MessagePattern(SUBJECTS.batches.transition)
  transition(@Payload() command: BatchTransitionCommand): Promise<BatchView> {
    return this.batches.transition(command);
  }

  @MessagePattern(SUBJECTS.batches.get)
  get(@Payload() query: BatchReference): Promise<BatchView> {
    return this.batches.get(query);
  }
}
