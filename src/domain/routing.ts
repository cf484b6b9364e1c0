// Payment routing (spec §4.5): the routing modes a merchant may ask for and the acquirer each mode
// answers with. The request contract offers the modes; the payments service names the acquirer.

/** Routing modes and the acquirer each answers with (spec §4.5 shows smart -> best_available). */
export const ROUTING_ACQUIRERS = { smart: 'best_available', direct: 'sandbox_acquirer' } as const;
