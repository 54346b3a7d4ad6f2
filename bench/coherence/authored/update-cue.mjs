/** Category `update_cue`: an update said with a cue word (now, moved, switched, no longer, changed, upgraded, …). */

/** @type {import('./types.mjs').Authored[]} [subject, label, fact, [target, ...distractors], note?] */
export default [
  [
    'ana',
    'supersede',
    'Ana moved to Lisbon.',
    ['Ana lives in Porto.', "Ana's sister Rita lives in Braga.", 'Ana works as a nurse at São João hospital.'],
  ],
  [
    'ana',
    'supersede',
    'Ana now works as a nurse at Hospital de Santa Maria in Lisbon.',
    ['Ana works as a nurse at São João hospital.', 'Ana works night shifts twice a week.', 'Ana cycles to work.'],
  ],
  [
    'ana',
    'supersede',
    'Ana no longer works night shifts.',
    ['Ana works night shifts twice a week.', 'Ana works as a nurse at São João hospital.', 'Ana lives in Porto.'],
  ],
  [
    'atlas',
    'supersede',
    'We upgraded atlas from Postgres 16 to 17 last night.',
    ['atlas uses PostgreSQL 16.', 'atlas caches sessions in Redis 7.', 'The atlas API runs on Node 20.'],
  ],
  [
    'atlas',
    'supersede',
    'The atlas API now listens on port 9090.',
    [
      'The atlas API listens on port 8080.',
      'The atlas admin dashboard listens on port 8081.',
      'atlas uses PostgreSQL 16.',
    ],
  ],
  [
    'atlas',
    'supersede',
    'atlas moved from Fly.io to Google Cloud Run.',
    [
      'atlas is deployed to Fly.io.',
      'atlas preview environments run on Render.',
      'The atlas API listens on port 8080.',
    ],
  ],
  [
    'atlas',
    'supersede',
    'atlas switched from JWTs to opaque session tokens for API auth.',
    [
      'The atlas API uses JWTs for authentication.',
      'atlas caches sessions in Redis 7.',
      'atlas stores uploaded files in Amazon S3.',
    ],
  ],
  [
    'orbit',
    'supersede',
    'Orbit switched push notifications from Firebase Cloud Messaging to OneSignal.',
    [
      'Orbit uses Firebase Cloud Messaging for push notifications.',
      'Orbit supports Sign in with Apple and Google login.',
      'Orbit crash reports are triaged every Monday.',
    ],
  ],
  [
    'orbit',
    'supersede',
    'Orbit now requires iOS 16 or later.',
    [
      "Orbit's minimum supported iOS version is 15.",
      "Orbit's minimum supported Android version is 10.",
      'Orbit is built with Expo SDK 50.',
    ],
  ],
  [
    'orbit',
    'supersede',
    "Dana handed Orbit's product management over to Priyanka.",
    [
      'Dana is the product manager for Orbit.',
      "Kofi leads Orbit's Android development.",
      'Orbit releases go out every second Wednesday.',
    ],
  ],
  [
    'mei',
    'supersede',
    'Mei changed jobs and is now a product manager.',
    ['Mei works as a UX researcher.', 'Mei reports to Hannah.', 'Mei works remotely on Fridays.'],
    'her manager likely changed too; Hannah left as is',
  ],
  [
    'mei',
    'supersede',
    'Mei has stopped bouldering on Thursdays; she climbs on Sundays now.',
    ['Mei goes bouldering on Thursdays.', 'Mei loves matcha.', 'Mei works remotely on Fridays.'],
  ],
  [
    'mei',
    'supersede',
    'Mei changed her phone number to +44 7700 900462.',
    ["Mei's phone number is +44 7700 900123.", "Tom's phone number is +44 7700 900555.", 'Mei lives in Manchester.'],
  ],
  [
    'ben',
    'supersede',
    'Ben left Stripe and joined Vercel.',
    ['Ben works at Stripe.', "Ben's wife Clara works at Shopify.", "Ben's favourite editor is Neovim."],
  ],
  [
    'ben',
    'supersede',
    'Ben moved from Neovim to Zed.',
    ["Ben's favourite editor is Neovim.", 'Ben uses a split ergonomic keyboard.', 'Ben prefers tabs over spaces.'],
  ],
  [
    'ben',
    'supersede',
    'Ben is now living in Seattle.',
    ['Ben lives in Portland.', "Ben's parents live in Chicago.", 'Ben works at Stripe.'],
  ],
  [
    'carlos',
    'supersede',
    'Carlos no longer teaches at IES Lluís Vives; he moved to IES Sorolla.',
    ['Carlos teaches at IES Lluís Vives.', 'Carlos teaches 18 hours a week.', 'Carlos is married to Elena.'],
  ],
  [
    'carlos',
    'supersede',
    'Carlos and Elena have divorced.',
    ['Carlos is married to Elena.', "Carlos's sister Marta lives in Madrid.", 'Carlos teaches at IES Lluís Vives.'],
    'marital status',
  ],
  [
    'carlos',
    'supersede',
    "From this term Carlos's classes start at 8:30.",
    ["Carlos's classes start at 8:15 am.", "Carlos's classes end at 14:30.", 'Carlos gives homework every Monday.'],
  ],
  [
    'team',
    'supersede',
    'The payments standup moved to 10:15.',
    [
      "The payments team's standup is at 9:30 every weekday.",
      "The payments team's retro is on Thursday at 15:00.",
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'supersede',
    'The Q3 code freeze has been pushed back to 19 September.',
    [
      'Code freeze for the Q3 release is on 12 September.',
      'The Q3 release ships on 26 September.',
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'supersede',
    'Jonas is back from paternity leave as of today.',
    [
      'Jonas is on paternity leave until 31 May.',
      'The payments team is managed by Nikos.',
      "The payments team's retro is on Thursday at 15:00.",
    ],
    'ends the leave early',
  ],
  [
    'lukas',
    'supersede',
    'Lukas moved his workshop out of the garage into a rented unit in Gundelfingen.',
    ['Lukas has a workshop in his garage.', 'Lukas makes custom furniture.', "Lukas's work van is a Ford Transit."],
  ],
  [
    'lukas',
    'supersede',
    'Lukas raised his hourly rate to €60.',
    ["Lukas's hourly rate is €55.", 'Lukas charges €40 per hour for work done by his apprentice.', 'Lukas is vegan.'],
  ],
  [
    'sophie',
    'supersede',
    'Sophie now does her accounting in Pennylane instead of Excel.',
    [
      "Sophie keeps her restaurant's accounts in Excel.",
      'Sophie uses a Mac for her accounting.',
      "Sophie's sous-chef is Théo.",
    ],
    'replaces the software (Excel), not the computer (Mac)',
  ],
  [
    'sophie',
    'supersede',
    "Sophie's restaurant is no longer open for Sunday lunch.",
    [
      "Sophie's restaurant serves lunch on Sundays.",
      "Sophie's restaurant seats 40 guests.",
      "The lunch menu at Sophie's restaurant costs €29.",
    ],
  ],
  [
    'home',
    'supersede',
    'We replaced the Škoda with a Tesla Model 3.',
    [
      "The Novaks' car is a blue Škoda Octavia.",
      'Groceries are bought by Petr on Saturdays.',
      'Bedtime for the children is 8 pm.',
    ],
  ],
  [
    'home',
    'supersede',
    'The Wi-Fi password was changed to Kavka2025!',
    [
      'The Wi-Fi password is Kavka2024!',
      'The guest Wi-Fi password is Host2024.',
      'The kids wake up at 6:45 on school days.',
    ],
  ],
  [
    'infra',
    'supersede',
    'Production has been migrated from Kubernetes 1.29 to 1.30.',
    [
      'The Kubernetes version in production is 1.29.',
      'The staging cluster runs Kubernetes 1.30.',
      'Every production change requires two reviewers.',
    ],
  ],
  [
    'infra',
    'supersede',
    'Alerts now go to #incidents instead of #ops-alerts.',
    [
      'Slack channel #ops-alerts receives all alerts.',
      'Grafana dashboards are provisioned from the ops-dashboards repo.',
      'Production uses Cilium for networking.',
    ],
  ],
];
