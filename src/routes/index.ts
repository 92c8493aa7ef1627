/**
 * Every route group of the auth API, mounted at `/` by `createApp`. A feature
 * adds its group here (one import, one entry).
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../deps.js';
import { healthRoutes } from './health.js';
import { refreshRoutes } from './refresh.js';
import { sessionRoutes } from './sessions.js';
import { userRoutes } from './users.js';

export const routeGroups: Hono<AppEnv>[] = [healthRoutes, refreshRoutes, sessionRoutes, userRoutes];
