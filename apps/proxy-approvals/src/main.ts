import 'reflect-metadata';
import { runStandaloneContext } from '@lib/runtime';
import { ProxyApprovalsModule } from './proxy-approvals.module';

void runStandaloneContext('proxy-approvals', ProxyApprovalsModule);
