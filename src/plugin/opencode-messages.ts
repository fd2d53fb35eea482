import type { Message, Part } from "@opencode-ai/sdk"
import type { HostMessage } from "../transcript/host-message.js"

/** One entry of the message list as OpenCode's SDK types it. */
export type OpenCodeMessage = { info: Message; parts: Part[] }

/**
 * OpenCode's messages as the engine's host messages, the same objects (edits written into them reach OpenCode). The
 * compiler checks here that every OpenCode message is a host message: an OpenCode upgrade that changes the shape the
 * engine reads fails the build instead of the engine.
 */
export function hostMessages(messages: OpenCodeMessage[]): HostMessage[] {
  return messages
}
