import type { PageRange } from '@lib/contracts';
import { isPageWanted } from '@lib/contracts';
import { parentPort, workerData } from 'node:worker_threads';
import type { DocumentKind } from './document-kinds';
import { readDocument } from './document-reader';
import { PageRecognition } from './page-recognition';
import { DocumentUnreadableError, type ReadDocument } from './document-reading';

/** The thread side of DocumentThreads: one document at a time, read as asked, answered or refused. */
export interface DocumentTask {
  id: number;
  kind: DocumentKind;
  bytes: Uint8Array;
  ranges: PageRange[] | null;
  max: number;
  budgetMs: number;
  ocr: boolean;
}

export type DocumentTaskReply =
  | { id: number; value: ReadDocument }
  | { id: number; refused: { reason: DocumentUnreadableError['reason']; message: string } }
  | { id: number; error: string };

if (parentPort && (workerData as { role?: string } | undefined)?.role === 'document-thread') {
  const port = parentPort;
  // Kept from one document to the next: starting tesseract costs what a page does.
  const recognition = new PageRecognition();
  port.on('message', (task: DocumentTask) => {
    const pages = {
      wanted: (n: number) => isPageWanted(task.ranges, n),
      max: task.max,
      deadline: performance.now() + task.budgetMs,
      recognition: task.ocr ? recognition : null,
    };
    readDocument(task.kind, Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength), pages).then(
      (value) => port.postMessage({ id: task.id, value } satisfies DocumentTaskReply),
      (error: unknown) =>
        port.postMessage(
          (error instanceof DocumentUnreadableError
            ? { id: task.id, refused: { reason: error.reason, message: error.message } }
            : { id: task.id, error: error instanceof Error ? error.message : String(error) }) satisfies DocumentTaskReply,
        ),
    );
  });
}
