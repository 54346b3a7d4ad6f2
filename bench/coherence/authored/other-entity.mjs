/** Category `other_entity`: nearly the same words as a stored fact, about another person, service or thing. */

/** @type {import('./types.mjs').Authored[]} [subject, label, fact, [look-alike, ...distractors], note?] */
export default [
  [
    'ana',
    'new',
    "Ana's sister lives in Porto.",
    ['Ana lives in Porto.', 'Ana works as a nurse at São João hospital.', 'Ana cycles to work.'],
    'no sister fact stored',
  ],
  [
    'ana',
    'new',
    "Ana's mother works as a nurse at São João hospital.",
    ['Ana works as a nurse at São João hospital.', 'Ana works night shifts twice a week.', 'Ana lives in Porto.'],
  ],
  [
    'ana',
    'new',
    "Ana's brother hates cilantro.",
    ['Ana hates cilantro.', "Ana's favourite food is bacalhau à brás.", 'Ana drinks coffee every morning.'],
  ],
  [
    'ben',
    'new',
    "Ben's wife works at Stripe.",
    ['Ben works at Stripe.', "Ben's favourite editor is Neovim.", 'Ben lives in Portland.'],
  ],
  [
    'ben',
    'new',
    "Priya's favourite editor is Neovim.",
    ["Ben's favourite editor is Neovim.", 'Ben uses a split ergonomic keyboard.', 'Ben works at Stripe.'],
    "Priya is Ben's manager",
  ],
  [
    'ben',
    'new',
    "Ben's brother has coeliac disease.",
    ['Ben has coeliac disease.', 'Ben avoids spicy food.', 'Ben lives in Portland.'],
  ],
  [
    'atlas',
    'new',
    'The billing API listens on port 8080.',
    ['The atlas API listens on port 8080.', 'atlas uses PostgreSQL 16.', 'atlas is deployed to Fly.io.'],
  ],
  [
    'atlas',
    'new',
    'The atlas admin dashboard uses JWTs for authentication.',
    [
      'The atlas API uses JWTs for authentication.',
      'The atlas API listens on port 8080.',
      'atlas caches sessions in Redis 7.',
    ],
  ],
  [
    'atlas',
    'new',
    'The analytics service uses PostgreSQL 16.',
    ['atlas uses PostgreSQL 16.', 'atlas caches sessions in Redis 7.', 'The atlas API runs on Node 20.'],
  ],
  [
    'orbit',
    'new',
    "Orbit's sister app Summit supports Sign in with Apple and Google login.",
    [
      'Orbit supports Sign in with Apple and Google login.',
      'Orbit stores session tokens in the iOS Keychain.',
      'Orbit is built with Expo SDK 50.',
    ],
  ],
  [
    'orbit',
    'new',
    'Dana is the product manager for Summit.',
    [
      'Dana is the product manager for Orbit.',
      "Kofi leads Orbit's Android development.",
      'Orbit releases go out every second Wednesday.',
    ],
    'one person, two products',
  ],
  [
    'orbit',
    'new',
    "Orbit's minimum supported Android version is 15.",
    [
      "Orbit's minimum supported iOS version is 15.",
      'Orbit is built with Expo SDK 50.',
      'Orbit uses Firebase Cloud Messaging for push notifications.',
    ],
    'no Android fact stored',
  ],
  [
    'mei',
    'new',
    "Mei's sister is lactose intolerant.",
    ['Mei is lactose intolerant.', 'Mei drinks oat milk in her coffee.', 'Mei works as a UX researcher.'],
  ],
  [
    'mei',
    'new',
    "Mei's son Kai is 7 years old.",
    ["Mei's daughter Lily is 7 years old.", 'Mei works remotely on Fridays.', 'Mei lives in Manchester.'],
    'no Kai fact stored',
  ],
  [
    'mei',
    'new',
    'Tom goes bouldering on Thursdays.',
    ['Mei goes bouldering on Thursdays.', 'Mei works remotely on Fridays.', 'Mei loves matcha.'],
    "Tom is Mei's partner",
  ],
  [
    'carlos',
    'new',
    'Elena teaches at IES Lluís Vives.',
    ['Carlos teaches at IES Lluís Vives.', 'Carlos is married to Elena.', 'Carlos teaches 18 hours a week.'],
  ],
  [
    'carlos',
    'new',
    "Carlos's brother Pablo lives in Madrid.",
    ["Carlos's sister Marta lives in Madrid.", 'Carlos is married to Elena.', 'Carlos teaches at IES Lluís Vives.'],
  ],
  [
    'team',
    'new',
    "The platform team's standup is at 9:30 every weekday.",
    [
      "The payments team's standup is at 9:30 every weekday.",
      "The payments team's retro is on Thursday at 15:00.",
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'new',
    "The data team's code freeze for Q3 is on 12 September.",
    [
      'Code freeze for the Q3 release is on 12 September.',
      'The Q3 release ships on 19 September.',
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'new',
    'Nikos is on paternity leave until 31 May.',
    [
      'Jonas is on paternity leave until 31 May.',
      'The payments team is managed by Nikos.',
      "The payments team's standup is at 9:30 every weekday.",
    ],
  ],
  [
    'lukas',
    'new',
    "Lukas's brother is vegan.",
    ['Lukas is vegan.', "Lukas's girlfriend Jana is vegetarian.", 'Lukas gets up at five a.m. every day.'],
  ],
  [
    'lukas',
    'new',
    'Jana has a workshop in her garage.',
    ['Lukas has a workshop in his garage.', "Lukas's girlfriend Jana is vegetarian.", 'Lukas makes custom furniture.'],
  ],
  [
    'sophie',
    'new',
    "Sophie's sister's restaurant seats 40 guests.",
    ["Sophie's restaurant seats 40 guests.", "Sophie's restaurant opened in 2019.", "Sophie's sous-chef is Théo."],
  ],
  [
    'sophie',
    'new',
    'Hugo uses a Mac for his homework.',
    [
      'Sophie uses a Mac for her accounting.',
      "Sophie keeps her restaurant's accounts in Excel.",
      "Sophie's restaurant seats 40 guests.",
    ],
    "Hugo is Sophie's son",
  ],
  [
    'home',
    'new',
    "Grandma Vera's car is a blue Škoda Octavia.",
    [
      "The Novaks' car is a blue Škoda Octavia.",
      'Groceries are bought by Petr on Saturdays.',
      'Bedtime for the children is 8 pm.',
    ],
  ],
  [
    'home',
    'new',
    'The guest Wi-Fi password is Kavka2024!',
    [
      'The Wi-Fi password is Kavka2024!',
      'The kids wake up at 6:45 on school days.',
      'Groceries are bought by Petr on Saturdays.',
    ],
    'the guest network, not the main one',
  ],
  [
    'infra',
    'new',
    'The staging database has 32 GB of RAM.',
    [
      'The primary database has 32 GB of RAM.',
      'Every production change requires two reviewers.',
      'The Kubernetes version in production is 1.29.',
    ],
  ],
  [
    'infra',
    'new',
    'The staging cluster uses Cilium for networking.',
    [
      'Production uses Cilium for networking.',
      'The Kubernetes version in production is 1.29.',
      'Slack channel #ops-alerts receives all alerts.',
    ],
  ],
];
