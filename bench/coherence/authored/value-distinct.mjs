/** Category `value_distinct`: wording that differs only in a number, date, version, port or name — two true facts. */

/**
 * Two orders, two invoices, two outages on two dates, two rooms: each fact is about its own thing, so nothing is
 * folded or replaced. The first fact of each list is the look-alike.
 * @type {import('./types.mjs').Authored[]} [subject, label, fact, [look-alike, ...distractors], note?]
 */
export default [
  [
    'team',
    'new',
    'Order #4513 was shipped on 3 May.',
    [
      'Order #4512 was shipped on 3 May.',
      'Refunds are processed within five working days.',
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'new',
    'Invoice 2024-032 is paid.',
    [
      'Invoice 2024-031 is paid.',
      'Invoice 2024-030 is overdue by two weeks.',
      'The payments team is managed by Nikos.',
    ],
  ],
  [
    'infra',
    'new',
    'Port 6379 is open only to the app subnet.',
    [
      'Port 5432 is open only to the app subnet.',
      'Production uses Cilium for networking.',
      'The Kubernetes version in production is 1.29.',
    ],
  ],
  [
    'team',
    'new',
    'Ticket PAY-1183 is blocked on legal review.',
    [
      'Ticket PAY-1182 is blocked on legal review.',
      'Ticket PAY-1175 was closed as a duplicate.',
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'new',
    'Checkout was down for 20 minutes on 18 March.',
    [
      'Checkout was down for 20 minutes on 4 March.',
      "The payments team's standup is at 9:30 every weekday.",
      'The payments team is managed by Nikos.',
    ],
    'two outages',
  ],
  [
    'ana',
    'new',
    'Ana has a shift on Thursday 11 April.',
    [
      'Ana has a shift on Tuesday 9 April.',
      'Ana works night shifts twice a week.',
      'Ana works as a nurse at São João hospital.',
    ],
  ],
  [
    'sophie',
    'new',
    'Sophie ordered 20 kg of flour on Thursday.',
    ['Sophie ordered 20 kg of flour on Monday.', "Sophie's restaurant seats 40 guests.", "Sophie's sous-chef is Théo."],
    'two orders',
  ],
  [
    'mei',
    'new',
    'Mei ran 10 km on Sunday.',
    ['Mei ran 10 km on Saturday.', 'Mei goes bouldering on Thursdays.', 'Mei lives in Manchester.'],
  ],
  [
    'atlas',
    'new',
    'The atlas v3 API is served under /v3.',
    [
      'The atlas v2 API is served under /v2.',
      'The atlas API listens on port 8080.',
      'The atlas API uses JWTs for authentication.',
    ],
  ],
  [
    'lukas',
    'new',
    'Lukas quoted €1,200 for the Schmidt bookshelf.',
    ['Lukas quoted €1,200 for the Meyer bookshelf.', "Lukas's hourly rate is €55.", 'Lukas makes custom furniture.'],
    'name only',
  ],
  [
    'carlos',
    'new',
    "Carlos's class 2C has 28 students.",
    ["Carlos's class 2B has 28 students.", 'Carlos teaches 18 hours a week.', 'Carlos gives homework every Monday.'],
  ],
  [
    'ben',
    'new',
    "Ben's return flight from Berlin is on 19 June.",
    ["Ben's outbound flight to Berlin is on 12 June.", 'Ben works at Stripe.', 'Ben lives in Portland.'],
  ],
  [
    'infra',
    'new',
    'Server db-02 has 32 GB of RAM.',
    [
      'Server db-01 has 32 GB of RAM.',
      'Every production change requires two reviewers.',
      'Production uses Cilium for networking.',
    ],
  ],
  [
    'team',
    'new',
    'The second Acme workshop is on 21 May.',
    [
      'The first Acme workshop is on 14 May.',
      'The Q3 release ships on 19 September.',
      "The payments team's retro is on Thursday at 15:00.",
    ],
  ],
  [
    'team',
    'new',
    'Invoice INV-0043 for €3,200 was sent to Acme.',
    [
      'Invoice INV-0042 for €3,200 was sent to Acme.',
      'Acme pays invoices within 30 days.',
      'The payments team is managed by Nikos.',
    ],
  ],
  [
    'atlas',
    'new',
    'atlas exposes gRPC on port 50051.',
    [
      'The atlas API listens on port 8080.',
      'The atlas admin dashboard listens on port 8081.',
      'atlas uses PostgreSQL 16.',
    ],
    'another listener',
  ],
  [
    'atlas',
    'new',
    'The atlas worker pool has 2 replicas in staging.',
    [
      'The atlas worker pool has 8 replicas in production.',
      'atlas is deployed to Fly.io.',
      'atlas uses PostgreSQL 16.',
    ],
  ],
  [
    'atlas',
    'new',
    'Node 18 is supported at runtime by the atlas SDK.',
    ['Node 20 is required to build the atlas SDK.', 'The atlas API runs on Node 20.', 'atlas uses pnpm workspaces.'],
    'build vs runtime',
  ],
  [
    'sophie',
    'new',
    "Sophie's restaurant has 4.6 stars on TripAdvisor.",
    [
      "Sophie's restaurant has 4.6 stars on Google.",
      "Sophie's restaurant opened in 2019.",
      "Sophie's restaurant seats 40 guests.",
    ],
  ],
  [
    'lukas',
    'new',
    'Lukas built a walnut dining table for the Wagners in 2023.',
    [
      'Lukas built a walnut dining table for the Bauers in 2022.',
      'Lukas makes custom furniture.',
      'Lukas has a workshop in his garage.',
    ],
  ],
  [
    'orbit',
    'new',
    "Orbit's iOS build number is 412.",
    [
      "Orbit's Android build number is 412.",
      'The current Orbit release is 3.4.2.',
      'Orbit releases go out every second Wednesday.',
    ],
  ],
  [
    'team',
    'new',
    'The Q3 goal is a 99.95% checkout success rate.',
    [
      'The Q2 goal was a 99.9% checkout success rate.',
      'Deploys are frozen on Fridays.',
      'The payments team is managed by Nikos.',
    ],
  ],
  [
    'ana',
    'new',
    "Ana's shift on Sunday starts at 20:00.",
    ["Ana's shift on Saturday starts at 20:00.", 'Ana works night shifts twice a week.', 'Ana cycles to work.'],
  ],
  [
    'mei',
    'new',
    "Mei's climbing gym is open until 20:00 on weekends.",
    [
      "Mei's climbing gym is open until 22:00 on weekdays.",
      'Mei goes bouldering on Thursdays.',
      'Mei works remotely on Fridays.',
    ],
  ],
  [
    'infra',
    'new',
    'The Kubernetes version in staging is 1.30.',
    [
      'The Kubernetes version in production is 1.29.',
      'Production uses Cilium for networking.',
      'Every production change requires two reviewers.',
    ],
    'staging, not production',
  ],
  [
    'team',
    'new',
    'Version 2 of the payments API is deprecated.',
    [
      'Version 1 of the payments API is deprecated.',
      'Version 3 of the payments API went live in April.',
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'infra',
    'new',
    'CVE-2024-6387 does not affect our images.',
    [
      'CVE-2024-3094 does not affect our images.',
      'Every production change requires two reviewers.',
      'Production uses Cilium for networking.',
    ],
  ],
  [
    'carlos',
    'new',
    'Carlos has a parent-teacher meeting with the Ortegas on 3 March.',
    [
      'Carlos has a parent-teacher meeting with the Garcías on 3 March.',
      'Carlos teaches at IES Lluís Vives.',
      "Carlos's classes end at 14:30.",
    ],
  ],
  [
    'home',
    'new',
    'The Novaks rent out flat 3C for €900 a month.',
    [
      'The Novaks rent out flat 3B for €900 a month.',
      'Groceries are bought by Petr on Saturdays.',
      'Bedtime for the children is 8 pm.',
    ],
  ],
  [
    'home',
    'new',
    'The 2023 tax return was filed on 28 April.',
    [
      'The 2022 tax return was filed on 28 April.',
      "The Novaks' accountant is Ms Horáková.",
      'Groceries are bought by Petr on Saturdays.',
    ],
  ],
  [
    'orbit',
    'new',
    'Orbit 3.4.1 fixed the login crash on iOS.',
    [
      'Orbit 3.4.2 fixed the map crash on Android.',
      'The current Orbit release is 3.4.2.',
      'Orbit releases go out every second Wednesday.',
    ],
  ],
  [
    'ben',
    'new',
    'Ben has a dentist appointment on 3 April and another on 17 April.',
    ['Ben has a physiotherapy session on 3 April.', 'Ben works at Stripe.', 'Ben lives in Portland.'],
    'dates shared with another appointment',
  ],
  [
    'home',
    'new',
    'Room 2 in the house has the old radiator.',
    [
      'Room 1 in the house has the new radiator.',
      'The kids wake up at 6:45 on school days.',
      'Groceries are bought by Petr on Saturdays.',
    ],
  ],
  [
    'sophie',
    'new',
    "Sophie's wine order from Domaine Huet arrives on 12 June.",
    [
      "Sophie's wine order from Domaine Weinbach arrives on 12 June.",
      "Sophie's restaurant seats 40 guests.",
      "Sophie's sous-chef is Théo.",
    ],
  ],
];
