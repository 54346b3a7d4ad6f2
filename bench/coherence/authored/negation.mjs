/** Category `negation`: "does X" against "does not X" — a reversal (supersede), another object (new), or the same. */

/**
 * Labelling: a new fact that negates a stored one about the same entity and the same thing is a supersede (the
 * attribute's value went from true to false: what is current is the negation); a negation about another thing,
 * shaped like a stored one, is new; a negation restated is a duplicate.
 * @type {import('./types.mjs').Authored[]} [subject, label, fact, [target or look-alike, ...distractors], note?]
 */
export default [
  [
    'ana',
    'supersede',
    "Ana doesn't drink coffee.",
    ['Ana drinks coffee every morning.', 'Ana likes green tea.', 'Ana hates cilantro.'],
  ],
  [
    'ben',
    'supersede',
    'Ben does not use Neovim.',
    ["Ben's favourite editor is Neovim.", 'Ben uses a split ergonomic keyboard.', 'Ben prefers tabs over spaces.'],
    'denies the stored fact',
  ],
  [
    'mei',
    'supersede',
    'Mei is not lactose intolerant after all; the test came back negative.',
    ['Mei is lactose intolerant.', 'Mei drinks oat milk in her coffee.', 'Mei loves dark chocolate.'],
  ],
  [
    'atlas',
    'supersede',
    'atlas does not use Redis.',
    ['atlas caches sessions in Redis 7.', 'atlas uses PostgreSQL 16.', 'The atlas API listens on port 8080.'],
  ],
  [
    'orbit',
    'supersede',
    'Orbit does not support Sign in with Apple.',
    [
      'Orbit supports Sign in with Apple and Google login.',
      'Orbit stores session tokens in the iOS Keychain.',
      "Orbit's minimum supported iOS version is 15.",
    ],
    'negates half of the stored fact; Google login is left unsaid',
  ],
  [
    'lukas',
    'supersede',
    "Lukas isn't vegan.",
    ['Lukas is vegan.', "Lukas's girlfriend Jana is vegetarian.", 'Lukas gets up at five a.m. every day.'],
  ],
  [
    'sophie',
    'supersede',
    "Sophie's restaurant doesn't serve lunch on Sundays.",
    [
      "Sophie's restaurant serves lunch on Sundays.",
      "The lunch menu at Sophie's restaurant costs €29.",
      "Sophie's restaurant seats 40 guests.",
    ],
  ],
  [
    'home',
    'supersede',
    'The kids are not allowed to watch TV on school nights.',
    [
      'The kids may watch TV for an hour on school nights.',
      'Bedtime for the children is 8 pm.',
      'Screen time ends an hour before bed.',
    ],
  ],
  [
    'ana',
    'new',
    "Ana doesn't like seafood.",
    ["Ana doesn't like spicy food.", 'Ana hates cilantro.', 'Ana drinks coffee every morning.'],
    'another object',
  ],
  [
    'ben',
    'new',
    'Ben does not eat pork.',
    ['Ben does not eat shellfish.', 'Ben has coeliac disease.', 'Ben avoids spicy food.'],
  ],
  [
    'mei',
    'new',
    "Mei doesn't drink alcohol.",
    ["Mei doesn't drink coffee.", 'Mei loves matcha.', 'Mei is lactose intolerant.'],
  ],
  [
    'atlas',
    'new',
    'atlas does not use GraphQL.',
    ['atlas does not use an ORM.', 'atlas uses PostgreSQL 16.', 'The atlas API uses JWTs for authentication.'],
  ],
  [
    'carlos',
    'new',
    'Carlos does not give homework on weekends.',
    [
      'Carlos gives homework every Monday.',
      'Carlos teaches 18 hours a week.',
      'Carlos prefers examples in metric units.',
    ],
    'compatible with the stored fact',
  ],
  [
    'lukas',
    'new',
    "Lukas doesn't work on Saturdays.",
    ["Lukas doesn't work on Sundays.", 'Lukas gets up at five a.m. every day.', 'Lukas has a workshop in his garage.'],
  ],
  [
    'sophie',
    'new',
    'Sophie does not like oysters.',
    ['Sophie does not like mussels.', 'Sophie has a tree-nut allergy.', "Sophie's sous-chef is Théo."],
  ],
  [
    'infra',
    'new',
    'The staging database is not encrypted at rest.',
    [
      'The production database is encrypted at rest.',
      'Every production change requires two reviewers.',
      'The Kubernetes version in production is 1.29.',
    ],
    'another entity, negated',
  ],
  [
    'ben',
    'duplicate',
    'Ben never eats shellfish.',
    ['Ben does not eat shellfish.', 'Ben has coeliac disease.', 'Ben avoids spicy food.'],
  ],
  [
    'mei',
    'duplicate',
    "Coffee is something Mei doesn't drink.",
    ["Mei doesn't drink coffee.", 'Mei loves matcha.', 'Mei is lactose intolerant.'],
  ],
  [
    'lukas',
    'duplicate',
    'Lukas never works on Sundays.',
    ["Lukas doesn't work on Sundays.", 'Lukas gets up at five a.m. every day.', 'Lukas is vegan.'],
  ],
  [
    'team',
    'duplicate',
    "Deployments don't happen on Fridays.",
    [
      'Deploys are frozen on Fridays.',
      'Deploys need a green CI run and one approval.',
      "The payments team's standup is at 9:30 every weekday.",
    ],
  ],
];
