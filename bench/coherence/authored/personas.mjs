/** The subjects of the labelled set: per subject, background facts on attributes no authored case touches. */

/**
 * Background facts by subject. Each is about an attribute (allergy, licence, birthday, …) that no case of that
 * subject speaks of, so filling a namespace with them never changes a case's right answer; they make the namespace
 * look like a real agent's memory of the same person or project.
 * @type {Record<string, string[]>}
 */
export const BACKGROUND = {
  ana: [
    'Ana is allergic to penicillin.',
    'Ana prefers short answers without bullet points.',
    "Ana's birthday is on 14 March.",
    'Ana did her degree at the University of Coimbra.',
    'Ana has a cat called Miso.',
    'Ana wants appointment reminders a day in advance.',
  ],
  ben: [
    'Ben writes most of his code in Rust and TypeScript.',
    'Ben has two kids, Leo and Maya.',
    'Ben prefers dark mode in every app.',
    'Ben is based in the Pacific time zone.',
    "Ben's manager is Priya.",
    'Ben takes his coffee black.',
  ],
  atlas: [
    'The atlas repository is hosted on GitHub under the acme-labs organisation.',
    'atlas is licensed under Apache-2.0.',
    'The atlas test suite runs with Vitest.',
    'Code review on atlas needs one approval from the platform team.',
    'atlas logs are shipped to Grafana Loki.',
    'atlas uses pnpm workspaces.',
  ],
  orbit: [
    'Orbit is a React Native app for booking climbing gyms.',
    'Orbit\'s designs live in a Figma file called "Orbit v3".',
    "Orbit's UI is translated into English, German and Polish.",
    'The Orbit backlog is tracked in Linear.',
    'Orbit crash reports go to Sentry.',
    "Orbit's app icon is a purple planet.",
  ],
  mei: [
    'Mei is vegetarian.',
    'Mei plays the cello in a community orchestra.',
    "Mei's partner is called Tom.",
    'Mei takes Japanese lessons on Tuesday evenings.',
    'Mei prefers meetings before noon.',
    'Mei is training for her first triathlon.',
  ],
  carlos: [
    'Carlos grew up in Valencia.',
    'Carlos supports Valencia CF.',
    'Carlos has a dog named Tango.',
    'Carlos wants lesson plans formatted as tables.',
    'Carlos is writing a textbook on optics.',
    'Carlos has taught physics for twelve years.',
  ],
  team: [
    'The payments team owns the checkout and refunds services.',
    'Sprint planning happens every other Monday.',
    "The team's Slack channel is #payments-eng.",
    'Retrospectives are facilitated by Jonas.',
    'The team uses Jira for tickets.',
    'Incidents are reviewed in a blameless postmortem within five days.',
  ],
  lukas: [
    'Lukas works as a carpenter in Freiburg.',
    'Lukas speaks German and English.',
    'Lukas is saving for a camper van.',
    "Lukas's favourite wood to work with is oak.",
    "Lukas's favourite band is Radiohead.",
    'Lukas prefers replies in German.',
  ],
  sophie: [
    'Sophie trained at the Institut Paul Bocuse.',
    'Sophie has a son named Hugo.',
    'Sophie hates early-morning calls.',
    'Sophie reads crime novels.',
    "Sophie's restaurant is closed on Mondays.",
    'Sophie drinks only decaf after 2 pm.',
  ],
  home: [
    "The Novak family's Wi-Fi network is called NovakHome.",
    'The thermostat is set to 21 °C during the day.',
    'The bins go out on Thursday evening.',
    'Grandma Vera visits every second Sunday.',
    'The dishwasher is a Bosch Serie 4.',
    'Petr is allergic to wasp stings.',
  ],
  infra: [
    'Production runs in the eu-west-1 region.',
    'Terraform state is stored in an S3 bucket with versioning on.',
    'Backups are taken every night at 02:00 UTC.',
    "TLS certificates are issued by Let's Encrypt.",
    'PagerDuty pages the on-call engineer for severity 1 and 2 incidents.',
    'Container images are built with BuildKit and pushed to GHCR.',
  ],
};
