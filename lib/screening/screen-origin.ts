/** How a screen came about, recorded on it (`origin`) and filtered on by the screen lists. */
export const SCREEN_ORIGINS = ['api', 'batch', 'client_registration', 'rescreen'] as const;
export type ScreenOrigin = (typeof SCREEN_ORIGINS)[number];

/** On a re-screen: what started its run (`list_change`: a list sync), recorded on the screen. */
export const RESCREEN_TRIGGERS = ['schedule', 'manual', 'list_change'] as const;
export type RescreenTrigger = (typeof RESCREEN_TRIGGERS)[number];
