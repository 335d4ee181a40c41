/** API roles (design.md, Security): readers query, admins also decide on predictions. */
export const Role = {
  READER: 'reader',
  ADMIN: 'admin',
} as const;

export type Role = (typeof Role)[keyof typeof Role];
