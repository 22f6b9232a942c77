import { currentCorrelationId } from '@lib/logging';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { firstValueFrom, from } from 'rxjs';
import { RequestCorrelationInterceptor } from './request-correlation.interceptor';

describe(RequestCorrelationInterceptor.name, () => {
  it('runs the handler, and what it awaits, in its request id: messages sent without a correlation id carry it', async () => {
    const context = { switchToHttp: () => ({ getRequest: () => ({ id: 'trace-abc' }) }) } as unknown as ExecutionContext;
    const handler: CallHandler = {
      handle: () =>
        from(
          (async () => {
            const before = currentCorrelationId();
            await new Promise((resolve) => setTimeout(resolve, 5));
            return [before, currentCorrelationId()];
          })(),
        ),
    };
    expect(await firstValueFrom(new RequestCorrelationInterceptor().intercept(context, handler))).toEqual(['trace-abc', 'trace-abc']);
    expect(currentCorrelationId()).toBeUndefined();
  });
});
