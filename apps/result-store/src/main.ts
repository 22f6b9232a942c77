import 'reflect-metadata';
import { runStandaloneContext } from '@lib/runtime';
import { ResultStoreModule } from './result-store.module';

void runStandaloneContext('result-store', ResultStoreModule);
