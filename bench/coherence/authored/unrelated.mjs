/** Category `unrelated`: a fact about the same person or project on a topic nothing stored touches. */

/** @type {import('./types.mjs').Authored[]} [subject, label, fact, [distractors...], note?] (no look-alike) */
export default [
  [
    'ana',
    'new',
    'Ana is planning a trip to Japan in October.',
    ['Ana lives in Porto.', 'Ana works as a nurse at São João hospital.', 'Ana hates cilantro.'],
  ],
  [
    'ana',
    'new',
    'Ana started learning the piano.',
    ['Ana works night shifts twice a week.', 'Ana cycles to work.', "Ana's favourite food is bacalhau à brás."],
  ],
  [
    'ana',
    'new',
    'Ana asked for recipes that take under 30 minutes.',
    ['Ana hates cilantro.', 'Ana drinks coffee every morning.', 'Ana lives in Porto.'],
  ],
  [
    'ben',
    'new',
    "Ben's car needs new tyres before winter.",
    ['Ben works at Stripe.', "Ben's favourite editor is Neovim.", 'Ben lives in Portland.'],
  ],
  [
    'ben',
    'new',
    'Ben wants his weekly summary on Friday afternoons.',
    ['Ben uses a split ergonomic keyboard.', 'Ben has coeliac disease.', 'Ben works at Stripe.'],
  ],
  [
    'atlas',
    'new',
    'The atlas README needs a section on local setup.',
    ['The atlas API listens on port 8080.', 'atlas uses PostgreSQL 16.', 'atlas is deployed to Fly.io.'],
  ],
  [
    'atlas',
    'new',
    "A flaky test in atlas's auth module fails about once a week.",
    [
      'The atlas API uses JWTs for authentication.',
      'atlas caches sessions in Redis 7.',
      'The atlas API runs on Node 20.',
    ],
  ],
  [
    'orbit',
    'new',
    "Orbit's App Store rating is 4.7.",
    [
      "Orbit's minimum supported iOS version is 15.",
      'Dana is the product manager for Orbit.',
      'Orbit is built with Expo SDK 50.',
    ],
  ],
  [
    'orbit',
    'new',
    'The Orbit team wants to try Maestro for UI tests.',
    [
      'Orbit releases go out every second Wednesday.',
      'Orbit uses Firebase Cloud Messaging for push notifications.',
      "Kofi leads Orbit's Android development.",
    ],
  ],
  [
    'mei',
    'new',
    "Mei is reading 'The Overstory'.",
    ['Mei works as a UX researcher.', 'Mei goes bouldering on Thursdays.', 'Mei is lactose intolerant.'],
  ],
  [
    'mei',
    'new',
    "Mei's passport expires in November 2026.",
    ['Mei lives in Manchester.', "Mei's daughter Lily is 7 years old.", 'Mei works remotely on Fridays.'],
  ],
  [
    'mei',
    'new',
    'Mei is considering a standing desk.',
    ['Mei works remotely on Fridays.', 'Mei loves matcha.', 'Mei reports to Hannah.'],
  ],
  [
    'carlos',
    'new',
    'Carlos wants to take his students to CERN next spring.',
    ['Carlos teaches at IES Lluís Vives.', 'Carlos prefers examples in metric units.', 'Carlos is married to Elena.'],
  ],
  [
    'carlos',
    'new',
    "Carlos's laptop battery barely lasts an hour.",
    ['Carlos teaches 18 hours a week.', "Carlos's classes start at 8:15 am.", 'Carlos gives homework every Monday.'],
  ],
  [
    'team',
    'new',
    'The payments team ordered new monitors for the office.',
    [
      "The payments team's standup is at 9:30 every weekday.",
      'Deploys are frozen on Fridays.',
      'The payments team is managed by Nikos.',
    ],
  ],
  [
    'team',
    'new',
    'A new engineer, Sven, joins the payments team on 3 June.',
    [
      'Jonas is on paternity leave until 31 May.',
      'The payments team is managed by Nikos.',
      'Deploys need a green CI run and one approval.',
    ],
  ],
  [
    'lukas',
    'new',
    'Lukas is thinking about buying a CNC router.',
    ['Lukas has a workshop in his garage.', 'Lukas makes custom furniture.', 'Lukas is vegan.'],
  ],
  [
    'lukas',
    'new',
    "Lukas's tax adviser is Frau Becker.",
    ["Lukas's hourly rate is €55.", "Lukas's work van is a Ford Transit.", 'Lukas gets up at five a.m. every day.'],
  ],
  [
    'sophie',
    'new',
    'Sophie wants to write a cookbook.',
    ["Sophie's restaurant seats 40 guests.", "Sophie's sous-chef is Théo.", 'Sophie has a tree-nut allergy.'],
  ],
  [
    'sophie',
    'new',
    "Sophie's health inspection passed with no remarks.",
    [
      "Sophie's restaurant opened in 2019.",
      'Sophie uses a Mac for her accounting.',
      "The tasting menu at Sophie's restaurant costs €75.",
    ],
  ],
  [
    'home',
    'new',
    'The boiler service is due in September.',
    [
      'Bedtime for the children is 8 pm.',
      "The Novaks' car is a blue Škoda Octavia.",
      'Groceries are bought by Petr on Saturdays.',
    ],
  ],
  [
    'home',
    'new',
    'Petr wants reminders to water the plants on Sundays.',
    [
      'Groceries are bought by Petr on Saturdays.',
      'The guest Wi-Fi password is Host2024.',
      'The kids wake up at 6:45 on school days.',
    ],
  ],
  [
    'infra',
    'new',
    'The on-call handbook lives in the ops wiki.',
    [
      'Slack channel #ops-alerts receives all alerts.',
      'Every production change requires two reviewers.',
      'Production uses Cilium for networking.',
    ],
  ],
  [
    'infra',
    'new',
    'The old Jenkins server is scheduled for decommissioning.',
    [
      'The Kubernetes version in production is 1.29.',
      'Grafana dashboards are provisioned from the ops-dashboards repo.',
      'Every production change requires two reviewers.',
    ],
  ],
];
