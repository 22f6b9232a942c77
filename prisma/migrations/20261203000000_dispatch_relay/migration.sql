-- The job row is its own dispatch outbox (issue 61, decision 0034). A dispatch commits
-- dispatched_at and then publishes; a process that dies between the two left the job processing
-- with no message for JOB_MAX_RUNTIME_SECONDS + JOB_LEASE_SECONDS (360 s). The dispatch relay
-- publishes every dispatch that has not started a moment after it was made, once per attempt,
-- under the same message id (the queue drops it when the first publish got through):
-- relayed_attempt is the attempt it last published, so an attempt is relayed at most once.
ALTER TABLE "jobs" ADD COLUMN "relayed_attempt" INTEGER;
