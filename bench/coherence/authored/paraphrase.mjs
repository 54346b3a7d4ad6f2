/** Category `paraphrase`: the same fact in other words, with little word overlap. */

/** @type {import('./types.mjs').Authored[]} [subject, label, fact, [target, ...distractors], note?] */
export default [
  [
    'ana',
    'duplicate',
    "Ana's job is nursing, at Hospital de São João.",
    [
      'Ana works as a nurse at São João hospital.',
      'Ana works night shifts twice a week.',
      "Ana's sister Rita is a doctor in Braga.",
    ],
  ],
  [
    'ana',
    'duplicate',
    "Ana can't stand coriander.",
    ['Ana hates cilantro.', "Ana's favourite food is bacalhau à brás.", 'Ana drinks coffee every morning.'],
    'coriander = cilantro',
  ],
  [
    'ana',
    'duplicate',
    'Ana commutes by bike.',
    ['Ana cycles to work.', 'Ana works as a nurse at São João hospital.', 'Ana lives in Porto.'],
  ],
  [
    'ben',
    'duplicate',
    'Ben does all his editing in Neovim.',
    ["Ben's favourite editor is Neovim.", 'Ben uses a split ergonomic keyboard.', 'Ben prefers tabs over spaces.'],
  ],
  [
    'ben',
    'duplicate',
    "Ben can't digest gluten.",
    ['Ben has coeliac disease.', 'Ben avoids spicy food.', "Ben's favourite cuisine is Vietnamese."],
  ],
  [
    'ben',
    'duplicate',
    "Ben's employer is Stripe.",
    ['Ben works at Stripe.', "Ben's wife Clara works at Shopify.", 'Ben used to work at Mozilla.'],
  ],
  [
    'atlas',
    'duplicate',
    'Incoming requests to atlas are served on 8080.',
    [
      'The atlas API listens on port 8080.',
      'The atlas admin dashboard listens on port 8081.',
      'atlas uses PostgreSQL 16.',
    ],
  ],
  [
    'atlas',
    'duplicate',
    'atlas keeps its data in Postgres, version 16.',
    [
      'atlas uses PostgreSQL 16.',
      'atlas caches sessions in Redis 7.',
      'The analytics warehouse for atlas is BigQuery.',
    ],
  ],
  [
    'atlas',
    'duplicate',
    'atlas ships to production through Fly.io.',
    [
      'atlas is deployed to Fly.io.',
      'atlas preview environments run on Render.',
      'The atlas API listens on port 8080.',
    ],
  ],
  [
    'atlas',
    'duplicate',
    'Every merge to main triggers a production release of atlas.',
    [
      'atlas is continuously deployed from the main branch.',
      'atlas is deployed to Fly.io.',
      'Release notes for atlas are written in CHANGELOG.md.',
    ],
  ],
  [
    'orbit',
    'duplicate',
    'Orbit needs at least iOS 15 to run.',
    [
      "Orbit's minimum supported iOS version is 15.",
      "Orbit's minimum supported Android version is 10.",
      'Orbit is built with Expo SDK 50.',
    ],
  ],
  [
    'orbit',
    'duplicate',
    'Users sign in to Orbit with their Google or Apple account.',
    [
      'Orbit supports Sign in with Apple and Google login.',
      'Orbit stores session tokens in the iOS Keychain.',
      'Orbit has no email/password login.',
    ],
  ],
  [
    'orbit',
    'duplicate',
    "The person who owns Orbit's roadmap is Dana.",
    [
      'Dana is the product manager for Orbit.',
      "Kofi leads Orbit's Android development.",
      "Orbit's QA is done by an external agency.",
    ],
  ],
  [
    'mei',
    'duplicate',
    "Mei doesn't eat dairy because it upsets her stomach.",
    ['Mei is lactose intolerant.', 'Mei drinks oat milk in her coffee.', 'Mei loves dark chocolate.'],
  ],
  [
    'mei',
    'duplicate',
    "Mei's little girl Lily is seven.",
    ["Mei's daughter Lily is 7 years old.", "Mei's son Kai is 4 years old.", 'Mei works remotely on Fridays.'],
  ],
  [
    'mei',
    'duplicate',
    "Mei's profession is user experience research.",
    ['Mei works as a UX researcher.', 'Mei reports to Hannah.', 'Mei works remotely on Fridays.'],
  ],
  [
    'mei',
    'duplicate',
    'Mei heads to the climbing wall every Thursday.',
    ['Mei goes bouldering on Thursdays.', 'Mei loves matcha.', 'Mei lives in Manchester.'],
  ],
  [
    'carlos',
    'duplicate',
    'Carlos gives lessons at the Lluís Vives secondary school.',
    ['Carlos teaches at IES Lluís Vives.', 'Carlos teaches 18 hours a week.', 'Carlos is married to Elena.'],
  ],
  [
    'carlos',
    'duplicate',
    'Carlos wants measurements in kilograms and metres, not pounds and feet.',
    [
      'Carlos prefers examples in metric units.',
      'Carlos gives homework every Monday.',
      "Carlos's classes start at 8:15 am.",
    ],
  ],
  [
    'carlos',
    'duplicate',
    "Carlos's wife is called Elena.",
    ['Carlos is married to Elena.', "Carlos's sister Marta lives in Madrid.", 'Carlos teaches at IES Lluís Vives.'],
  ],
  [
    'team',
    'duplicate',
    'Every weekday at half past nine the payments team has its standup.',
    [
      "The payments team's standup is at 9:30 every weekday.",
      "The payments team's retro is on Thursday at 15:00.",
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'duplicate',
    'Nobody ships to production on a Friday.',
    [
      'Deploys are frozen on Fridays.',
      'Deploys need a green CI run and one approval.',
      'Code freeze for the Q3 release is on 12 September.',
    ],
  ],
  [
    'team',
    'duplicate',
    'Jonas is away on parental leave until the end of May.',
    [
      'Jonas is on paternity leave until 31 May.',
      'The payments team is managed by Nikos.',
      "The payments team's standup is at 9:30 every weekday.",
    ],
    'end of May = 31 May',
  ],
  [
    'lukas',
    'duplicate',
    'Lukas eats no animal products at all.',
    ['Lukas is vegan.', "Lukas's girlfriend Jana is vegetarian.", 'Lukas gets up at five a.m. every day.'],
  ],
  [
    'lukas',
    'duplicate',
    "Lukas's girlfriend Jana doesn't eat meat.",
    ["Lukas's girlfriend Jana is vegetarian.", 'Lukas is vegan.', 'Lukas makes custom furniture.'],
  ],
  [
    'lukas',
    'duplicate',
    'Lukas rises at 5 every morning.',
    ['Lukas gets up at five a.m. every day.', "Lukas doesn't work on Sundays.", 'Lukas has a workshop in his garage.'],
  ],
  [
    'sophie',
    'duplicate',
    "Sophie's place has room for forty diners.",
    [
      "Sophie's restaurant seats 40 guests.",
      "Sophie's restaurant opened in 2019.",
      "Sophie's restaurant has a terrace with 12 extra seats in summer.",
    ],
  ],
  [
    'sophie',
    'duplicate',
    'Sophie does her bookkeeping on a MacBook.',
    ['Sophie uses a Mac for her accounting.', "Sophie's sous-chef is Théo.", 'Sophie has a tree-nut allergy.'],
  ],
  [
    'sophie',
    'duplicate',
    "Sophie can't eat almonds, walnuts or hazelnuts; she's allergic.",
    ['Sophie has a tree-nut allergy.', 'Sophie does not like mussels.', 'Sophie uses a Mac for her accounting.'],
  ],
  [
    'home',
    'duplicate',
    'The kids go to bed at eight in the evening.',
    [
      'Bedtime for the children is 8 pm.',
      'The kids wake up at 6:45 on school days.',
      'Screen time ends an hour before bed.',
    ],
  ],
  [
    'home',
    'duplicate',
    'Petr does the grocery shopping each Saturday.',
    [
      'Groceries are bought by Petr on Saturdays.',
      'Bedtime for the children is 8 pm.',
      "The Novaks' car is a blue Škoda Octavia.",
    ],
  ],
  [
    'infra',
    'duplicate',
    "Prod's Kubernetes is on 1.29.",
    [
      'The Kubernetes version in production is 1.29.',
      'The staging cluster runs Kubernetes 1.30.',
      'Production uses Cilium for networking.',
    ],
  ],
  [
    'infra',
    'duplicate',
    'Alerts are routed to the #ops-alerts channel in Slack.',
    [
      'Slack channel #ops-alerts receives all alerts.',
      'Grafana dashboards are provisioned from the ops-dashboards repo.',
      'Every production change requires two reviewers.',
    ],
  ],
  [
    'infra',
    'duplicate',
    'Changes to production need sign-off from two people.',
    [
      'Every production change requires two reviewers.',
      'The Kubernetes version in production is 1.29.',
      'Slack channel #ops-alerts receives all alerts.',
    ],
  ],
];
