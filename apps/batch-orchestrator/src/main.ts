import 'reflect-metadata';
import { runStandaloneContext } from '@lib/runtime';
import { BatchOrchestratorModule } from './batch-orchestrator.module';

void runStandaloneContext('batch-orchestrator', BatchOrchestratorModule);
