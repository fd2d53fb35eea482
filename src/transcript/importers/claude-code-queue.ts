/**
 * Messages a person typed while Claude Code was busy, followed through its `queue-operation` records (read from the
 * Claude Code 2.1.39 bundle and checked against a real session):
 * - `enqueue` (with the text): the message waits.
 * - `remove`: Claude Code attached the message to its next model call, mid-turn, as a `queued_command` attachment.
 *   2.1.39 writes no other record of it: no user record ever carries that text. Later versions name the text here.
 * - `dequeue`: the message ran as a new prompt when the agent went idle; a user record with its text follows.
 * Background-task notifications (`<task-notification>…`) are enqueued too, but wait in another queue that 2.1.39 never
 * attaches mid-turn, and reach the model as a user record of their own.
 */
export type MessageQueue = {
  enqueue(message: { record: number; content: string }): void
  dequeue(): void
  /** A `remove` at `record`: the message it names, else the oldest typed one, was attached to the next model call. */
  remove(operation: { record: number; content: string | null }): void
  /** A user record carries `text`: a waiting message with exactly that text is delivered by that record. */
  deliveredInRecord(text: string): void
  /**
   * A `queued_command` attachment at `record` names the message attached to the next model call (versions that write
   * one): the same message as a `remove` of that text, attached once whichever of the two records comes first.
   */
  attachedByRecord(attachment: { record: number; content: string }): void
  /** The attached messages not handed over yet, oldest first; empties the list. */
  takeAttached(): AttachedMessage[]
}

/** A queued message Claude Code attached mid-turn: the records that name it, and the text the model read. */
export type AttachedMessage = { enqueued: number; removed: number; content: string; text: string }

/** Creates an empty queue. */
export function createMessageQueue(): MessageQueue {
  let waiting: { record: number; content: string }[] = []
  let attached: AttachedMessage[] = []
  const take = (index: number): { record: number; content: string } | undefined => {
    const message = waiting[index]
    if (message !== undefined) waiting = waiting.filter((_, position) => position !== index)
    return message
  }
  return {
    enqueue(message) {
      waiting.push(message)
    },
    dequeue() {
      take(waiting.findIndex((message) => !isTaskNotification(message.content)))
    },
    remove({ record, content }) {
      if (content !== null && attached.some((message) => message.content === content)) return
      const named = content === null ? -1 : waiting.findIndex((message) => message.content === content)
      const index = named >= 0 ? named : waiting.findIndex((message) => !isTaskNotification(message.content))
      const message = take(index)
      if (message) attached.push(attach(message.record, record, message.content))
    },
    deliveredInRecord(text) {
      take(waiting.findIndex((message) => message.content === text))
    },
    attachedByRecord({ record, content }) {
      if (attached.some((message) => message.content === content)) return
      const message = take(waiting.findIndex((waiter) => waiter.content === content))
      attached.push(attach(message?.record ?? record, record, content))
    },
    takeAttached() {
      const taken = attached
      attached = []
      return taken
    },
  }
}

/**
 * What Claude Code 2.1.39 sends the model for a message it attached mid-turn (its `queued_command` attachment, wrapped
 * as a system reminder). It lands after the tool results of the step that was running: folded into the last result's
 * text when that is a plain string, else as a text block after the results.
 */
export function attachedMessageText(content: string): string {
  return [
    "<system-reminder>",
    "The user sent a new message while you were working:",
    content,
    "",
    "IMPORTANT: After completing your current task, you MUST address the user's message above. Do not ignore it.",
    "</system-reminder>",
  ].join("\n")
}

function attach(enqueued: number, removed: number, content: string): AttachedMessage {
  return { enqueued, removed, content, text: attachedMessageText(content) }
}

function isTaskNotification(content: string): boolean {
  return content.startsWith("<task-notification>")
}
