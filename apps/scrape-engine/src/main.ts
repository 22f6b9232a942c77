import 'reflect-metadata';
import { runStandaloneContext } from '@lib/runtime';
import { ScrapeEngineModule } from './scrape-engine.module';

void runStandaloneContext('scrape-engine', ScrapeEngineModule);
