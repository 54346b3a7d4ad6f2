/** Category `same_topic`: another true fact on the same topic — a second value of a many-valued attribute, a detail. */

/** @type {import('./types.mjs').Authored[]} [subject, label, fact, [look-alike, ...distractors], note?] */
export default [
  [
    'ana',
    'new',
    'Ana speaks French.',
    ['Ana speaks Spanish.', 'Ana lives in Porto.', 'Ana works as a nurse at São João hospital.'],
    'one speaks several languages',
  ],
  [
    'ana',
    'new',
    'Ana also hates olives.',
    ['Ana hates cilantro.', "Ana's favourite food is bacalhau à brás.", 'Ana drinks coffee every morning.'],
  ],
  [
    'ana',
    'new',
    'Ana works on the cardiology ward.',
    ['Ana works as a nurse at São João hospital.', 'Ana works night shifts twice a week.', 'Ana cycles to work.'],
    'a detail, not a change',
  ],
  [
    'ben',
    'new',
    'Ben has a mechanical keyboard at the office.',
    ['Ben uses a split ergonomic keyboard.', "Ben's favourite editor is Neovim.", 'Ben works at Stripe.'],
  ],
  [
    'ben',
    'new',
    'Ben is allergic to cats.',
    ['Ben is allergic to dust mites.', 'Ben has coeliac disease.', 'Ben lives in Portland.'],
  ],
  [
    'atlas',
    'new',
    'atlas also exposes a gRPC endpoint on port 50051.',
    ['The atlas API listens on port 8080.', 'atlas uses PostgreSQL 16.', 'atlas is deployed to Fly.io.'],
  ],
  [
    'atlas',
    'new',
    'atlas uses Redis 7 for rate limiting too.',
    ['atlas caches sessions in Redis 7.', 'atlas uses PostgreSQL 16.', 'The atlas API listens on port 8080.'],
  ],
  [
    'atlas',
    'new',
    'atlas preview environments run on Render.',
    ['atlas is deployed to Fly.io.', 'atlas uses PostgreSQL 16.', 'The atlas API runs on Node 20.'],
    'previews, not production',
  ],
  [
    'orbit',
    'new',
    'Orbit supports dark mode.',
    [
      'Orbit supports landscape mode on tablets.',
      "Orbit's minimum supported iOS version is 15.",
      'Orbit is built with Expo SDK 50.',
    ],
  ],
  [
    'orbit',
    'new',
    "Orbit's QA is done by an external agency.",
    [
      "Orbit's end-to-end tests run on Detox.",
      'Orbit releases go out every second Wednesday.',
      'Dana is the product manager for Orbit.',
    ],
  ],
  [
    'mei',
    'new',
    'Mei drinks oat milk in her coffee.',
    ['Mei is lactose intolerant.', 'Mei loves matcha.', 'Mei works remotely on Fridays.'],
    'related, not the same',
  ],
  [
    'mei',
    'new',
    'Mei also goes swimming on Mondays.',
    ['Mei goes bouldering on Thursdays.', 'Mei works remotely on Fridays.', 'Mei lives in Manchester.'],
  ],
  [
    'mei',
    'new',
    'Mei loves dark chocolate.',
    ['Mei loves matcha.', 'Mei is lactose intolerant.', 'Mei goes bouldering on Thursdays.'],
  ],
  [
    'carlos',
    'new',
    'Carlos also teaches an evening astronomy class for adults.',
    ['Carlos teaches at IES Lluís Vives.', 'Carlos teaches 18 hours a week.', 'Carlos is married to Elena.'],
  ],
  [
    'carlos',
    'new',
    'Carlos gives homework every Monday.',
    [
      'Carlos sets a lab practical every Friday.',
      'Carlos teaches at IES Lluís Vives.',
      "Carlos's classes start at 8:15 am.",
    ],
  ],
  [
    'team',
    'new',
    "The payments team's retro is on Thursday at 15:00.",
    [
      "The payments team's standup is at 9:30 every weekday.",
      'Deploys are frozen on Fridays.',
      'The payments team is managed by Nikos.',
    ],
  ],
  [
    'team',
    'new',
    "Hotfixes can ship on Fridays with the lead's sign-off.",
    [
      'Deploys are frozen on Fridays.',
      'Deploys need a green CI run and one approval.',
      "The payments team's standup is at 9:30 every weekday.",
    ],
    'an exception to the freeze, which stays',
  ],
  [
    'lukas',
    'new',
    'Lukas also makes wooden toys for his nieces.',
    ['Lukas makes custom furniture.', 'Lukas has a workshop in his garage.', 'Lukas is vegan.'],
  ],
  [
    'lukas',
    'new',
    'Lukas is learning Spanish.',
    [
      'Lukas is learning to play the guitar.',
      'Lukas gets up at five a.m. every day.',
      'Lukas has a workshop in his garage.',
    ],
  ],
  [
    'sophie',
    'new',
    "Sophie's restaurant has a terrace with 12 extra seats in summer.",
    ["Sophie's restaurant seats 40 guests.", "Sophie's restaurant opened in 2019.", "Sophie's sous-chef is Théo."],
  ],
  [
    'sophie',
    'new',
    "The lunch menu at Sophie's restaurant costs €29.",
    [
      "The tasting menu at Sophie's restaurant costs €75.",
      "Sophie's restaurant seats 40 guests.",
      'Sophie uses a Mac for her accounting.',
    ],
  ],
  [
    'home',
    'new',
    'The kids wake up at 6:45 on school days.',
    [
      'Bedtime for the children is 8 pm.',
      'Groceries are bought by Petr on Saturdays.',
      "The Novaks' car is a blue Škoda Octavia.",
    ],
  ],
  [
    'infra',
    'new',
    'The webhook rate limit is 100 requests per minute per key.',
    [
      'The API rate limit is 1000 requests per minute per key.',
      'Every production change requires two reviewers.',
      'Production uses Cilium for networking.',
    ],
  ],
  [
    'infra',
    'new',
    'Production also runs a three-node Redis cluster for queues.',
    [
      'Production runs a PostgreSQL 16 primary with two replicas.',
      'Production uses Cilium for networking.',
      'The Kubernetes version in production is 1.29.',
    ],
  ],
];
