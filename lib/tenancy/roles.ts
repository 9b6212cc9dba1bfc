/** The roles of a tenant's users (README, "User and key management"). */
export type Role = 'admin' | 'analyst';
export const ROLES: readonly Role[] = ['admin', 'analyst'];
