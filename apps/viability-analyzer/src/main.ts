import 'reflect-metadata';
import { runStandaloneContext } from '@lib/runtime';
import { ViabilityAnalyzerModule } from './viability-analyzer.module';

void runStandaloneContext('viability-analyzer', ViabilityAnalyzerModule);
