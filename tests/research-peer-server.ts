import { startResearchPeer } from "./research-peer";

/**
 * The research peer as a process of its own, for the e2e server
 * (playwright.config.ts): search on RESEARCH_PEER_PORT, pages on the next
 * port. Only queries about Lake Zorb find anything, so other specs' research
 * runs as it would against a search that finds nothing readable.
 */
const port = Number(process.env.RESEARCH_PEER_PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error("RESEARCH_PEER_PORT must be a port number");
const peer = await startResearchPeer({ searchPort: port, pagePort: port + 1 });
process.stdout.write(`research peer: search ${peer.searchUrl}, pages ${peer.pageOrigin}\n`);
const stop = () => void peer.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
