import 'reflect-metadata';
import { runStandaloneContext } from '@lib/runtime';
import { WebhookSenderModule } from './webhook-sender.module';

void runStandaloneContext('webhook-sender', WebhookSenderModule);
