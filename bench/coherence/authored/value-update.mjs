/** Category `value_update`: the same wording with only a number, date, version, port or name changed — an update. */

/**
 * Each attribute here holds one value at a time (one listening port for the API, one PostgreSQL version, one age,
 * one product manager), so the new value replaces the old one even though nothing says "now" or "moved".
 * @type {import('./types.mjs').Authored[]} [subject, label, fact, [target, ...distractors], note?]
 */
export default [
  [
    'atlas',
    'supersede',
    'The atlas API listens on port 9090.',
    [
      'The atlas API listens on port 8080.',
      'The atlas admin dashboard listens on port 8081.',
      'atlas is deployed to Fly.io.',
    ],
  ],
  [
    'atlas',
    'supersede',
    'atlas uses PostgreSQL 17.',
    ['atlas uses PostgreSQL 16.', 'atlas caches sessions in Redis 7.', 'The atlas API listens on port 8080.'],
  ],
  [
    'atlas',
    'supersede',
    'The atlas API runs on Node 22.',
    ['The atlas API runs on Node 20.', 'The atlas worker processes run on Bun 1.1.', 'atlas uses PostgreSQL 16.'],
  ],
  [
    'atlas',
    'supersede',
    'atlas caches sessions in Valkey 8.',
    ['atlas caches sessions in Redis 7.', 'atlas uses PostgreSQL 16.', 'atlas stores uploaded files in Amazon S3.'],
    'product name and version',
  ],
  [
    'orbit',
    'supersede',
    "Orbit's minimum supported iOS version is 16.",
    [
      "Orbit's minimum supported iOS version is 15.",
      "Orbit's minimum supported Android version is 10.",
      'Orbit is built with Expo SDK 50.',
    ],
  ],
  [
    'orbit',
    'supersede',
    'Orbit is built with Expo SDK 51.',
    [
      'Orbit is built with Expo SDK 50.',
      "Orbit's minimum supported iOS version is 15.",
      'Orbit uses Firebase Cloud Messaging for push notifications.',
    ],
  ],
  [
    'orbit',
    'supersede',
    'The current Orbit release is 3.5.0.',
    [
      'The current Orbit release is 3.4.2.',
      'Orbit 3.4.2 fixed the map crash on Android.',
      'Orbit releases go out every second Wednesday.',
    ],
    'a fact about 3.4.2 itself stays true',
  ],
  [
    'orbit',
    'supersede',
    'Priyanka is the product manager for Orbit.',
    [
      'Dana is the product manager for Orbit.',
      "Kofi leads Orbit's Android development.",
      "Orbit's QA is done by an external agency.",
    ],
    'name',
  ],
  [
    'team',
    'supersede',
    "The payments team's standup is at 10:00 every weekday.",
    [
      "The payments team's standup is at 9:30 every weekday.",
      "The payments team's retro is on Thursday at 15:00.",
      'Deploys are frozen on Fridays.',
    ],
  ],
  [
    'team',
    'supersede',
    'Code freeze for the Q3 release is on 19 September.',
    [
      'Code freeze for the Q3 release is on 12 September.',
      'The Q3 release ships on 26 September.',
      'Deploys are frozen on Fridays.',
    ],
    'date',
  ],
  [
    'team',
    'supersede',
    'The on-call lead this week is Amara.',
    [
      'The on-call lead this week is Jonas.',
      'The payments team is managed by Nikos.',
      'Deploys need a green CI run and one approval.',
    ],
    'name; a rotating role',
  ],
  [
    'ana',
    'supersede',
    'Ana works night shifts three times a week.',
    ['Ana works night shifts twice a week.', 'Ana works as a nurse at São João hospital.', 'Ana cycles to work.'],
  ],
  [
    'mei',
    'supersede',
    "Mei's daughter Lily is 8 years old.",
    ["Mei's daughter Lily is 7 years old.", "Mei's son Kai is 4 years old.", 'Mei works as a UX researcher.'],
    'age goes up',
  ],
  [
    'mei',
    'supersede',
    "Mei's monthly rent is €1,350.",
    ["Mei's monthly rent is €1,200.", "Mei's monthly gym membership is €45.", 'Mei lives in Manchester.'],
  ],
  [
    'ben',
    'supersede',
    "Ben's GitHub handle is @benk.",
    ["Ben's GitHub handle is @bkowal.", "Ben's Twitter handle is @bkowal.", 'Ben works at Stripe.'],
  ],
  [
    'ben',
    'supersede',
    "Ben's laptop is a MacBook Pro M3.",
    [
      "Ben's laptop is a MacBook Pro M1.",
      "Ben's home desktop has a Ryzen 7 5800X.",
      'Ben uses a split ergonomic keyboard.',
    ],
  ],
  [
    'carlos',
    'supersede',
    "Carlos's classes start at 8:00 am.",
    ["Carlos's classes start at 8:15 am.", "Carlos's classes end at 14:30.", 'Carlos teaches 18 hours a week.'],
  ],
  [
    'carlos',
    'supersede',
    'Carlos teaches 22 hours a week.',
    ['Carlos teaches 18 hours a week.', "Carlos's classes start at 8:15 am.", 'Carlos teaches at IES Lluís Vives.'],
  ],
  [
    'carlos',
    'supersede',
    "Carlos's class 2B has 31 students.",
    ["Carlos's class 2B has 28 students.", "Carlos's class 2C has 25 students.", 'Carlos gives homework every Monday.'],
    'the same class, a new count',
  ],
  [
    'lukas',
    'supersede',
    "Lukas's hourly rate is €65.",
    [
      "Lukas's hourly rate is €55.",
      'Lukas charges €40 per hour for work done by his apprentice.',
      'Lukas makes custom furniture.',
    ],
  ],
  [
    'sophie',
    'supersede',
    "Sophie's restaurant seats 55 guests.",
    [
      "Sophie's restaurant seats 40 guests.",
      "Sophie's restaurant has a terrace with 12 extra seats in summer.",
      "Sophie's restaurant opened in 2019.",
    ],
  ],
  [
    'sophie',
    'supersede',
    "The tasting menu at Sophie's restaurant costs €85.",
    [
      "The tasting menu at Sophie's restaurant costs €75.",
      "The lunch menu at Sophie's restaurant costs €29.",
      "Sophie's restaurant seats 40 guests.",
    ],
  ],
  [
    'home',
    'supersede',
    'The Wi-Fi password is Kavka2025!',
    ['The Wi-Fi password is Kavka2024!', 'The guest Wi-Fi password is Host2024.', 'Bedtime for the children is 8 pm.'],
  ],
  [
    'home',
    'supersede',
    "The kids' bedtime is 8:30 pm.",
    [
      'Bedtime for the children is 8 pm.',
      'The kids wake up at 6:45 on school days.',
      'Screen time ends an hour before bed.',
    ],
  ],
  [
    'infra',
    'supersede',
    'The Kubernetes version in production is 1.30.',
    [
      'The Kubernetes version in production is 1.29.',
      'The staging cluster runs Kubernetes 1.30.',
      'Production uses Cilium for networking.',
    ],
  ],
  [
    'infra',
    'supersede',
    'The primary database has 64 GB of RAM.',
    [
      'The primary database has 32 GB of RAM.',
      'The read replica has 32 GB of RAM.',
      'Every production change requires two reviewers.',
    ],
    'the replica keeps 32 GB',
  ],
  [
    'infra',
    'supersede',
    'The API rate limit is 2000 requests per minute per key.',
    [
      'The API rate limit is 1000 requests per minute per key.',
      'The webhook rate limit is 100 requests per minute per key.',
      'Slack channel #ops-alerts receives all alerts.',
    ],
  ],
  [
    'ana',
    'supersede',
    "Ana's mobile number is +351 912 345 876.",
    ["Ana's mobile number is +351 912 345 678.", "Ana's work phone is +351 225 512 100.", 'Ana lives in Porto.'],
    'two digits swapped',
  ],
  [
    'ben',
    'supersede',
    "Ben's salary is $185,000 a year.",
    ["Ben's salary is $170,000 a year.", 'Ben works at Stripe.', "Ben's laptop is a MacBook Pro M1."],
  ],
];
