export {
  createTerminalService,
  TerminalService,
  TerminalLimitError,
  type TerminalServiceConfig,
} from "./terminal-service";
export { TerminalSession, type TerminalInfo, type TerminalSink, type TerminalAttachment } from "./terminal-session";
export { handleTerminalSocket, type TerminalSocketOptions } from "./terminal-socket";
