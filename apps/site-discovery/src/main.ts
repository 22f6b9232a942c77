import 'reflect-metadata';
import { runStandaloneContext } from '@lib/runtime';
import { SiteDiscoveryModule } from './site-discovery.module';

void runStandaloneContext('site-discovery', SiteDiscoveryModule);
