import 'reflect-metadata';
import { runStandaloneContext } from '@lib/runtime';
import { BillingMeterModule } from './billing-meter.module';

void runStandaloneContext('billing-meter', BillingMeterModule);
