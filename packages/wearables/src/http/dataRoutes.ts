/**
 * The read side of the health data in one place: the services of the connections, data sources, timeseries,
 * events and health scores routes built from the database, and the registration of those routes — what
 * `index.ts` wires with two lines.
 */
import type { Database, HttpServer } from "@platform/kernel";
import { type ConnectionsService, createConnectionsService } from "../services/connections.ts";
import { createDataSourcesService, type DataSourcesService } from "../services/dataSources.ts";
import { createEventsService, type EventsService } from "../services/events.ts";
import { createHealthScoresService, type HealthScoresService } from "../services/healthScores.ts";
import { createTimeseriesService, type TimeseriesService } from "../services/timeseries.ts";
import { createConnectionsStore } from "../store/connectionsRepository.ts";
import { createDataSourcesRepository } from "../store/dataSourcesRepository.ts";
import { createEventsRepository } from "../store/eventsRepository.ts";
import { createHealthScoresRepository } from "../store/healthScoresRepository.ts";
import { createTimeseriesRepository } from "../store/timeseriesRepository.ts";
import { connectionsTag, registerConnectionRoutes } from "./connections.ts";
import { dataSourcesTag, registerDataSourceRoutes } from "./dataSources.ts";
import { eventsTag, registerEventRoutes } from "./events.ts";
import { healthScoresTag, registerHealthScoreRoutes } from "./healthScores.ts";
import { registerTimeseriesRoutes, timeseriesTag } from "./timeseries.ts";

export interface DataReadServices {
  connections: ConnectionsService;
  dataSources: DataSourcesService;
  timeseries: TimeseriesService;
  events: EventsService;
  healthScores: HealthScoresService;
}

export function createDataReadServices({ db }: { db: Database }): DataReadServices {
  return {
    connections: createConnectionsService(createConnectionsStore(db)),
    dataSources: createDataSourcesService(createDataSourcesRepository(db)),
    timeseries: createTimeseriesService(createTimeseriesRepository(db)),
    events: createEventsService(createEventsRepository(db)),
    healthScores: createHealthScoresService(createHealthScoresRepository(db)),
  };
}

/** The OpenAPI tags of these routes, in the order the docs show them. */
export const dataReadTags = [connectionsTag, timeseriesTag, eventsTag, dataSourcesTag, healthScoresTag];

export function registerDataReadRoutes(app: HttpServer, services: DataReadServices) {
  registerConnectionRoutes(app, services.connections);
  registerTimeseriesRoutes(app, services.timeseries);
  registerEventRoutes(app, services.events);
  registerDataSourceRoutes(app, services.dataSources);
  registerHealthScoreRoutes(app, services.healthScores);
}
