/** Everything access control says to people, in one place so wording stays consistent. */

function minutes(ms: number): string {
  const count = Math.max(1, Math.round(ms / 60_000));
  return count === 1 ? '1 minute' : `${count} minutes`;
}

function seconds(ms: number): string {
  const count = Math.max(1, Math.ceil(ms / 1000));
  if (count >= 90) return minutes(ms);
  return count === 1 ? '1 second' : `${count} seconds`;
}

export const ACCESS_MESSAGES = {
  pairing: (code: string, validForMs: number) =>
    `Hi! This assistant is private, so I can't answer you yet.\n\nYour pairing code is **${code}**. Send it to the owner of this assistant; once they approve it, write to me again. The code is valid for ${minutes(validForMs)}.`,
  pairingBusy: () =>
    'This assistant is private, and this account has asked for access several times today. Please try again tomorrow, or ask the owner directly.',
  pairingDeclined: () => 'The owner of this assistant has not approved access for this account.',
  allowlistOnly: () => 'This assistant only answers people its owner has allowed.',
  directDisabled: () => 'Direct messages to this assistant are turned off on this channel.',
  groupNotAllowed: () =>
    'This assistant is not enabled in this group. Its owner can add the group to the group allowlist.',
  rateLimitedPerson: (retryAfterMs: number) =>
    `You're sending messages faster than I can answer. Please wait ${seconds(retryAfterMs)} and try again.`,
  rateLimitedGlobal: (retryAfterMs: number) =>
    `I'm answering a lot of messages right now. Please try again in ${seconds(retryAfterMs)}.`,
  help: (direct: boolean) =>
    [
      'Here is what I understand besides normal messages:',
      '- /new: start a new conversation (I stop using the earlier messages of this chat)',
      ...(direct
        ? [
            '- /memories: what I remember about you, numbered (/memories 2 for the next page)',
            '- /forget 3: delete memory number 3 of that list',
            '- /forget-me: delete everything I keep about you',
            '- /link: link this account with your account on another channel, so I remember you in both',
          ]
        : [
            '- /memories: what I remember about this group (every member sees it; I use no personal memory here)',
            '- /forget 3: delete memory number 3 of that list',
            '- /forget-me and /link work in a direct message with me',
          ]),
      '- /help: this list',
    ].join('\n'),
  introduction: (direct: boolean) =>
    direct
      ? "Hi, I'm your assistant. I remember what you tell me about yourself (your preferences, facts about you, what you are working on) so I don't have to ask again, and I use it only when I answer you. You decide what stays: /memories shows everything I remember, /forget and a number deletes one memory, /forget-me deletes all of it."
      : "Hi, I'm your assistant. In this group I remember facts about the group only, never personal ones, and every member can see them with /memories and delete one with /forget and its number.",
  welcomeBackKnown: (name: string | undefined, facts: readonly string[]) =>
    `Welcome back${name ? `, ${name}` : ''}! I remember you. Among other things:\n${facts.map((fact) => `- ${fact}`).join('\n')}\n\n/memories shows everything I remember about you, /forget and a number deletes one memory, /forget-me deletes all of it.`,
  newConversation: () => "Started a new conversation. I won't use the earlier messages of this chat.",
  directOnly: (command: string) => `For your privacy, send /${command} to me in a direct message.`,
  memoryOff: () => "Memory is not enabled on this assistant, so I don't remember anything about anyone.",
  memoriesEmpty: () => "I don't remember anything about you yet.",
  groupMemoriesEmpty: () =>
    "I don't remember anything about this group yet. In groups I only keep facts about the group, never personal ones.",
  forgetConfirm: (confirmWithinMs: number, linkedAccounts: readonly string[] = []) =>
    `This deletes everything I keep about you, on every account linked to you: what I remember (also what I noted in groups from what you said), our conversations (your messages and my replies, in groups too), pending background work, link codes and the links between your accounts. It cannot be undone.\n\n${
      linkedAccounts.length === 0
        ? `To go ahead, send **/forget-me confirm** within ${minutes(confirmWithinMs)}.`
        : `This account is linked with ${linkedAccounts.join(', ')}: what came from there goes too, so each of them has to agree. Send **/forget-me confirm** here, and **/forget-me** then **/forget-me confirm** from each of them, within ${minutes(confirmWithinMs)}. Nothing is deleted until all have.`
    }`,
  forgetWaitingForLinked: (waitingFor: readonly string[], withinMs: number) =>
    `Noted for this account. Nothing is deleted yet: ${waitingFor.join(', ')} must also send **/forget-me** then **/forget-me confirm** within ${minutes(withinMs)}, since what came from there goes too.`,
  forgetNothingPending: () => 'There is nothing to confirm. Send /forget-me first.',
  forgotten: (removed: ReadonlyArray<{ kind: string; count: number }>) =>
    [
      'Done. I deleted everything I kept about you:',
      ...removed.map(({ kind, count }) => `- ${kind}: ${count}`),
      'Your accounts are no longer linked, and your conversations start afresh.',
    ].join('\n'),
  linkCode: (code: string, validForMs: number) =>
    `Your link code is **${code}**. Within ${minutes(validForMs)}, send **/link ${code}** to me from your other account (another channel or browser) and confirm there. I'll then ask you here to approve it. Never send this code to anyone else: whoever enters it can ask to join you.`,
  linkUsage: () =>
    'To link accounts, send /link on the first account; it gives you a code to send from the other one as /link CODE.',
  linkCodeWrong: () =>
    'That link code is not valid or has expired. Ask for a new one with /link on your other account.',
  linkLocked: (retryAfterMs: number) =>
    `Too many wrong codes. Code entry is locked for this account; try again in ${minutes(retryAfterMs)}.`,
  linkJoinQuestion: (about: {
    issuedOn: string;
    issuer: string;
    otherAccounts: number;
    confirmWithinMs: number;
  }) =>
    `This code was made by a ${about.issuedOn} account (${about.issuer}). Entering it makes this account${about.otherAccounts > 0 ? ` and the ${about.otherAccounts} other account${about.otherAccounts === 1 ? '' : 's'} linked to it` : ''} part of that person: whoever uses that account sees everything I remember about you, can add to it and can ask me to forget it.\n\nOnly go on if that account is yours. If someone else gave you this code or asked you to send it, send **/link deny**.\n\nIf it is yours, send **/link confirm** here within ${minutes(about.confirmWithinMs)}; I'll then ask that account to approve too. Nothing is linked until both of you do.`,
  linkNothingToConfirm: () => 'No link code is waiting for your confirmation here. Send /link CODE first.',
  linkApprovalRequest: (enteredOn: string, who: string, approveWithinMs: number) =>
    `Someone just entered your link code from a ${enteredOn} account (${who}). If that is you, send **/link approve** here within ${minutes(approveWithinMs)}: I'll then treat both accounts as you and share what I remember. If it is not you, send **/link deny**; nothing is linked either way until you approve.`,
  linkWaitingForApproval: (issuedOn: string, approveWithinMs: number) =>
    `I've asked your ${issuedOn} account to approve this link. Send **/link approve** there within ${minutes(approveWithinMs)}; this account is linked as soon as you do.`,
  linkNoticeFailed: (issuedOn: string) =>
    `I could not reach your ${issuedOn} account to ask it to approve, so nothing was linked. Ask for a new code with /link there and try again.`,
  linkUnavailable: () =>
    "Linking needs me to ask your other account for approval, and I can't send it messages here. Nothing was linked.",
  linkApproveElsewhere: () =>
    'You already confirmed: the link is now approved on the account that asked for the code, with /link approve there.',
  linkNothingToApprove: () => 'No link is waiting for your approval here.',
  linkDenied: () => 'Cancelled. Nothing was linked, and that code no longer works.',
  linkAlready: () => 'This account is already linked to that person.',
  linked: (otherOn: string) => `Linked. This account and your ${otherOn} account are now one person to me.`,
} as const;
