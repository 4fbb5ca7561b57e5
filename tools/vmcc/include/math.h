/* strata-vmcc parse-only header (see stddef.h). */
#ifndef VMCC_MATH_H
#define VMCC_MATH_H
double sin(double x);
double cos(double x);
double sqrt(double x);
double fabs(double x);
double floor(double x);
double atan2(double y, double x);
double log(double x);
double exp(double x);
double pow(double x, double y);
float sinf(float x);
float cosf(float x);
float sqrtf(float x);
#define M_PI 3.14159265358979323846
#endif
