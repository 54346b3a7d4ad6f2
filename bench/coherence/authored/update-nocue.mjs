/** Category `update_nocue`: an update stated plainly, with no cue word, often in other words than the old fact. */

/** @type {import('./types.mjs').Authored[]} [subject, label, fact, [target, ...distractors], note?] */
export default [
  [
    'ana',
    'supersede',
    "Ana's address is Rua Augusta 21, Lisbon.",
    ['Ana lives at Rua de Cedofeita 120, Porto.', "Ana's sister Rita lives in Braga.", 'Ana cycles to work.'],
  ],
  [
    'ana',
    'supersede',
    'Ana is a nurse at Hospital da Luz.',
    ['Ana works as a nurse at São João hospital.', 'Ana works night shifts twice a week.', 'Ana lives in Porto.'],
    'employer',
  ],
  [
    'ana',
    'supersede',
    "Ana's partner is Miguel.",
    ['Ana is dating João.', "Ana's sister Rita lives in Braga.", 'Ana lives in Porto.'],
  ],
  [
    'ben',
    'supersede',
    'Ben prefers spaces over tabs.',
    ['Ben prefers tabs over spaces.', "Ben's favourite editor is Neovim.", 'Ben uses a split ergonomic keyboard.'],
    'the same words, the preference reversed',
  ],
  [
    'ben',
    'supersede',
    'Ben works at Vercel.',
    ['Ben works at Stripe.', 'Ben used to work at Mozilla.', "Ben's wife Clara works at Shopify."],
    'the Mozilla fact is history and stays',
  ],
  [
    'ben',
    'supersede',
    'Ben drives a Rivian R1T.',
    ['Ben drives a 2015 Subaru Outback.', 'Ben lives in Portland.', "Ben's laptop is a MacBook Pro M1."],
  ],
  [
    'atlas',
    'supersede',
    'atlas is deployed to Google Cloud Run.',
    ['atlas is deployed to Fly.io.', 'atlas preview environments run on Render.', 'atlas uses PostgreSQL 16.'],
  ],
  [
    'atlas',
    'supersede',
    'Requests to the atlas API are served on port 9443.',
    [
      'The atlas API listens on port 8080.',
      'The atlas admin dashboard listens on port 8081.',
      'The atlas API uses JWTs for authentication.',
    ],
  ],
  [
    'atlas',
    'supersede',
    'atlas stores uploaded files in Cloudflare R2.',
    [
      'atlas stores uploaded files in Amazon S3.',
      'atlas backups are kept in Backblaze B2.',
      'atlas uses PostgreSQL 16.',
    ],
  ],
  [
    'atlas',
    'supersede',
    'The atlas team lead is Farid.',
    ['Wen leads the atlas team.', 'Wen is the tech lead of the billing service.', 'atlas is deployed to Fly.io.'],
    'the billing fact about Wen stays',
  ],
  [
    'orbit',
    'supersede',
    "Orbit's push notifications go through OneSignal.",
    [
      'Orbit uses Firebase Cloud Messaging for push notifications.',
      'Orbit supports Sign in with Apple and Google login.',
      'Orbit is built with Expo SDK 50.',
    ],
  ],
  [
    'orbit',
    'supersede',
    "Orbit's Android work is led by Sasha.",
    [
      "Kofi leads Orbit's Android development.",
      'Kofi also reviews iOS pull requests.',
      'Dana is the product manager for Orbit.',
    ],
  ],
  [
    'orbit',
    'supersede',
    "Orbit's next release is planned for 2 July.",
    [
      "Orbit's next release is planned for 18 June.",
      "Orbit's last release shipped on 4 June.",
      'Orbit releases go out every second Wednesday.',
    ],
  ],
  [
    'mei',
    'supersede',
    'Mei is a product manager at Monzo.',
    ['Mei works as a UX researcher.', 'Mei works remotely on Fridays.', 'Mei goes bouldering on Thursdays.'],
  ],
  [
    'mei',
    'supersede',
    'Mei rents a flat in Bristol.',
    ['Mei lives in Manchester.', "Mei's monthly gym membership is €45.", 'Mei works as a UX researcher.'],
  ],
  [
    'mei',
    'supersede',
    "Mei's manager is Oliver.",
    ['Mei reports to Hannah.', 'Mei works as a UX researcher.', 'Mei works remotely on Fridays.'],
  ],
  [
    'carlos',
    'supersede',
    'Carlos teaches at IES Sorolla.',
    [
      'Carlos teaches at IES Lluís Vives.',
      'Carlos teaches 18 hours a week.',
      'Carlos prefers examples in metric units.',
    ],
    'one school at a time (assumed)',
  ],
  [
    'carlos',
    'supersede',
    "Lucía is Carlos's head of department.",
    ["Carlos's department head is Andrés.", 'Carlos teaches at IES Lluís Vives.', 'Carlos is married to Elena.'],
  ],
  [
    'team',
    'supersede',
    'Standup for payments happens at quarter past ten.',
    [
      "The payments team's standup is at 9:30 every weekday.",
      "The payments team's retro is on Thursday at 15:00.",
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'supersede',
    'Q3 goes out to customers on 3 October.',
    [
      'The Q3 release ships on 26 September.',
      'Code freeze for the Q3 release is on 19 September.',
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'supersede',
    "Amara is the payments team's engineering manager.",
    [
      'The payments team is managed by Nikos.',
      'The on-call lead this week is Jonas.',
      'Deploys need a green CI run and one approval.',
    ],
  ],
  [
    'lukas',
    'supersede',
    "Lukas's workshop is in a rented unit in Gundelfingen.",
    ['Lukas has a workshop in his garage.', 'Lukas makes custom furniture.', 'Lukas is vegan.'],
  ],
  [
    'lukas',
    'supersede',
    'Lukas gets around for work in a VW Crafter.',
    ["Lukas's work van is a Ford Transit.", 'Lukas has a workshop in his garage.', "Lukas's hourly rate is €55."],
  ],
  [
    'sophie',
    'supersede',
    "Sophie keeps the restaurant's books in Pennylane.",
    [
      "Sophie keeps her restaurant's accounts in Excel.",
      'Sophie uses a Mac for her accounting.',
      "Sophie's restaurant seats 40 guests.",
    ],
    'replaces Excel, not the Mac',
  ],
  [
    'sophie',
    'supersede',
    "Karim is Sophie's second in the kitchen.",
    ["Sophie's sous-chef is Théo.", "Sophie's restaurant seats 40 guests.", 'Sophie has a tree-nut allergy.'],
    'second in the kitchen = sous-chef',
  ],
  [
    'home',
    'supersede',
    'The family car is a white Tesla Model 3.',
    [
      "The Novaks' car is a blue Škoda Octavia.",
      'Groceries are bought by Petr on Saturdays.',
      'The guest Wi-Fi password is Host2024.',
    ],
  ],
  [
    'home',
    'supersede',
    'The kids go to bed at 8:30.',
    [
      'Bedtime for the children is 8 pm.',
      'The kids wake up at 6:45 on school days.',
      'Screen time ends an hour before bed.',
    ],
  ],
  [
    'infra',
    'supersede',
    'Production runs Kubernetes 1.30.',
    [
      'The Kubernetes version in production is 1.29.',
      'The staging cluster runs Kubernetes 1.30.',
      'Production uses Cilium for networking.',
    ],
  ],
];
