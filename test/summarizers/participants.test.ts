/** Who the people of a conversation are, when they say it (src/summarizers/participants.ts). */
import { describe, expect, it } from 'vitest';
import type { SummarizerMessage } from '../../src/ports.js';
import { analyzeConversation } from '../../src/summarizers/conversation.js';
import { createExtractiveSummarizer } from '../../src/summarizers/extractive.js';
import { createNlpHolder } from '../../src/summarizers/nlp.js';
import { participantNames } from '../../src/summarizers/participants.js';

const nlp = await createNlpHolder().get();
const names = (user: string, assistant: string) =>
  participantNames(
    analyzeConversation(nlp, [
      { id: 'm1', role: 'USER', text: user },
      { id: 'm2', role: 'ASSISTANT', text: assistant },
    ]),
  );

describe('participantNames', () => {
  it('takes the name one side addresses the other by', () => {
    expect(names('Harry, do you like the opera?', 'No, not really.')).toEqual({ ASSISTANT: 'Harry' });
    expect(names('Hi Joe. How was your trip?', 'Great, we went to the lake.')).toEqual({ ASSISTANT: 'Joe' });
    expect(names('Lieb! How are you doing these days?', 'I am busy with my new cat.')).toEqual({ ASSISTANT: 'Lieb' });
    expect(names('Can you squeeze me in sometime today?', "That's a big order, Jane. I am really swamped.")).toEqual({ USER: 'Jane' });
    expect(names('Hi, David. How is your work?', 'Hi, Susan. Not so well.')).toEqual({ USER: 'Susan', ASSISTANT: 'David' });
  });

  it('takes the name a side introduces itself with', () => {
    expect(names('Hello, this is Susan speaking. Is Mr. Brown in, please?', 'Yes, speaking.')).toEqual({ USER: 'Susan' });
    expect(names("Hello, my name's David Parker. I'm calling about the apartment.", 'Yes, it has one bedroom.')).toEqual({
      USER: 'David Parker',
    });
    expect(names("Excuse me. I'm your new neighbor, Jack. I just moved in.", 'Oh. Yes?')).toEqual({ USER: 'Jack' });
  });

  it('takes no interjection, call or feeling for a name', () => {
    expect(names('You look tired. What time did you get up?', 'Hmm... I got up at 11:30 AM.')).toEqual({});
    expect(names('Taxi! Taxi!', 'Where to, sir?')).toEqual({});
    expect(names("I'm sorry. I missed the bus.", 'Never mind.')).toEqual({});
    expect(names('Dad! Can you help me?', 'Yeah, what is it?')).toEqual({});
    expect(names('How was the meeting?', 'It went well.')).toEqual({});
  });

  it('takes no assistant, greeting, wish or firm for a person', () => {
    expect(names('Hi Claude. What is a good name for a puppy?', 'Sunny or Maple.')).toEqual({});
    expect(names('Is the report ready?', 'I sent it an hour ago. See you tomorrow, Bye!')).toEqual({});
    expect(names('I just got the job!', 'That is wonderful news, Congratulations!')).toEqual({});
    expect(names('Hello, this is Paris Hotel.', 'I would like to book a double room.')).toEqual({});
    expect(names('Netflix. Do you still pay for it?', 'I cancelled it last month.')).toEqual({});
  });

  it('takes a name from an introduction only when that is all the sentence says', () => {
    // Named from it, the note would read `Maria said that this is Maria, …`.
    expect(names('Hi, this is Maria, I am calling about my bill.', 'I see the double charge.')).toEqual({});
    expect(names('Hi, this is Dan from the garage.', 'Is my car ready?')).toEqual({ USER: 'Dan' });
  });

  it('never gives both sides one name', () => {
    expect(names('Hi, Anna.', 'Hi, Anna.')).toEqual({});
  });
});

describe('summaries of conversations between people', () => {
  const call: SummarizerMessage[] = [
    { id: 'm1', role: 'USER', text: 'Hello, this is Susan speaking. Is Mr. Brown in, please?' },
    { id: 'm2', role: 'ASSISTANT', text: 'Yes, speaking.' },
    { id: 'm3', role: 'USER', text: 'Your son Ted missed the school trip this morning. Do you know why?' },
    { id: 'm4', role: 'ASSISTANT', text: 'He got up a bit late this morning because the clock did not work.' },
  ];

  it('name the people who say their names, instead of their roles', async () => {
    const summary = await createExtractiveSummarizer().summarize(call);
    expect(summary).toMatch(/^Susan asked whether Mr\. Brown is in\b/);
    // Her introduction, once she is named by it, is not reported.
    expect(summary).not.toMatch(/this is Susan/);
    expect(summary).not.toMatch(/The user/);
  });

  it('keep the names the caller gave the speakers', async () => {
    const summary = await createExtractiveSummarizer({ speakers: { USER: 'The caller', ASSISTANT: 'The parent' } }).summarize(call);
    expect(summary).toMatch(/^The caller /);
    expect(summary).toMatch(/The parent /);
  });

  it('keep a name put in for `you` capitalized, and give an unnamed side person pronouns', async () => {
    const party = await createExtractiveSummarizer().summarize([
      { id: 'm1', role: 'USER', text: 'Hi, Mark. Are you coming to the party tonight?' },
      { id: 'm2', role: 'ASSISTANT', text: 'Yes, I am bringing my guitar and my sister.' },
    ]);
    expect(party).toMatch(/whether Mark is coming to the party tonight/);
    const support = await createExtractiveSummarizer().summarize([
      { id: 'm1', role: 'USER', text: 'Hi, this is Dan from the garage.' },
      { id: 'm2', role: 'ASSISTANT', text: 'I brought my car in on Monday and my brakes still squeak.' },
    ]);
    expect(support).not.toMatch(/\bits (car|brakes)\b/);
  });

  it("keep a coding assistant's chat in its roles", async () => {
    const summary = await createExtractiveSummarizer().summarize([
      { id: 'm1', role: 'USER', text: 'Hi Claude. How do I make the Node Docker image smaller?' },
      {
        id: 'm2',
        role: 'ASSISTANT',
        text: 'Use a multi-stage build.\n\n```dockerfile\nFROM node:20 AS build\nRUN npm ci\nFROM node:20-slim\nCOPY --from=build /app /app\n```',
      },
    ]);
    expect(summary).toMatch(/^The user asked/);
    expect(summary).not.toMatch(/Claude/);
  });
});
