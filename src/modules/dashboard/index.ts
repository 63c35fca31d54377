import { defineModule } from '../module.ts';
import { purgeEndedSignIns } from './dashboard.service.ts';
import { dashboardSessions, dashboardSignInLinks } from './dashboard.table.ts';

/** Dashboard sessions and one-time sign-in links (the pages are src/web/dashboard). */
export default defineModule({
  name: 'dashboard',
  tables: [dashboardSessions, dashboardSignInLinks],
  retention: [{ name: 'ended dashboard sign-ins', purge: purgeEndedSignIns }],
});
